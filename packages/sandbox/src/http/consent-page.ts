/**
 * The pages `/oauth/authorize` shows a browser: sign in (pick a sandbox user), consent (the
 * application, what it asks for, the default plan, Authorize / Deny), and the refusals that must
 * not redirect. Plain HTML forms, no script, so any browser (or a test with `fetch`) can answer
 * them.
 */

export interface HtmlPage {
  status: number;
  html: string;
}

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? '',
  );

const STYLE = `
body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f4f5f7; color: #1d2330; }
main { box-sizing: border-box; width: min(28rem, calc(100% - 1.5rem)); margin: 3rem auto;
  padding: 1.5rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 4px rgb(0 0 0 / 0.12); }
h1 { font-size: 1.35rem; margin: 0 0 1rem; }
fieldset { border: 1px solid #d5d9e0; border-radius: 8px; margin: 1rem 0; }
label { display: block; padding: 0.25rem 0; }
.actions { display: flex; gap: 0.75rem; margin-top: 1.25rem; }
button { font: inherit; padding: 0.6rem 1.1rem; border-radius: 8px; border: 1px solid #9aa3b2;
  background: #fff; cursor: pointer; }
button.primary { background: #2a5bd7; border-color: #2a5bd7; color: #fff; }
.users button { display: block; width: 100%; text-align: left; margin: 0.5rem 0; }
.note { color: #556070; font-size: 0.9rem; }
.error-code { font-family: ui-monospace, monospace; }
`;

function page(status: number, title: string, body: string): HtmlPage {
  return {
    status,
    html: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Plans sandbox</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`,
  };
}

const hiddenInputs = (fields: Readonly<Record<string, string>>): string =>
  Object.entries(fields)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`,
    )
    .join('\n');

export interface SignInUser {
  id: string;
  name: string;
  planCount: number;
}

/**
 * Who approves: one button per sandbox user, each sending the authorization request again with
 * `sandbox_user` set (a GET, so the request stays what the application asked for).
 */
export function signInPage(
  clientName: string,
  users: readonly SignInUser[],
  request: Readonly<Record<string, string>>,
): HtmlPage {
  const buttons = users
    .map(
      (user) =>
        `<button type="submit" name="sandbox_user" value="${escapeHtml(user.id)}">${escapeHtml(user.name)} <span class="note">(${user.planCount} ${user.planCount === 1 ? 'plan' : 'plans'})</span></button>`,
    )
    .join('\n');
  return page(
    200,
    'Sign in',
    `<h1>Sign in to the Plans sandbox</h1>
<p>${escapeHtml(clientName)} wants to use your plans. Choose the sandbox user to sign in as.</p>
<form method="get" action="/oauth/authorize" class="users">
${hiddenInputs(request)}
${buttons}
</form>`,
  );
}

export interface ConsentView {
  clientName: string;
  scope: 'full' | 'read-only';
  userName: string;
  /** Where "Use another account" goes; `null` when the sandbox has one user. */
  switchUserHref: string | null;
  /** The user's plans, when the application has default plan selection. */
  plans: readonly { id: string; name: string }[] | null;
  defaultPlanId: string | null;
  /** The one-time id of this pending request, sent back with the answer. */
  ticket: string;
  redirectOrigin: string;
  /** Set when the application may not be authorized (restricted mode's limit). */
  refusal: string | null;
}

function planChoice(view: ConsentView): string {
  if (view.plans === null || view.plans.length === 0) return '';
  const options = view.plans
    .map(
      (plan) =>
        `<label><input type="radio" name="default_plan" value="${escapeHtml(plan.id)}"${plan.id === view.defaultPlanId ? ' checked' : ''}> ${escapeHtml(plan.name)}</label>`,
    )
    .join('\n');
  return `<fieldset>
<legend>Default plan</legend>
<p class="note">The application may use <code>default</code> for this plan.</p>
${options}
</fieldset>`;
}

export function consentPage(view: ConsentView): HtmlPage {
  const access =
    view.scope === 'read-only'
      ? 'read your plans (read-only: it cannot change anything)'
      : 'read and change your plans';
  const switchUser =
    view.switchUserHref === null
      ? ''
      : ` · <a href="${escapeHtml(view.switchUserHref)}">Use another account</a>`;
  const approve =
    view.refusal === null
      ? '<button type="submit" name="decision" value="approve" class="primary">Authorize</button>\n'
      : '';
  const refusal =
    view.refusal === null ? '' : `<p role="alert" class="refusal">${escapeHtml(view.refusal)}</p>`;
  return page(
    view.refusal === null ? 200 : 403,
    `Authorize ${view.clientName}`,
    `<h1>Authorize ${escapeHtml(view.clientName)}</h1>
<p class="note">Signed in as <strong class="user">${escapeHtml(view.userName)}</strong>${switchUser}</p>
<p><strong>${escapeHtml(view.clientName)}</strong> asks to ${access}.</p>
<p class="note">Scope: <span class="scope">${view.scope}</span>. You will be sent back to ${escapeHtml(view.redirectOrigin)}.</p>
${refusal}
<form method="post" action="/oauth/authorize">
<input type="hidden" name="request" value="${escapeHtml(view.ticket)}">
${view.refusal === null ? planChoice(view) : ''}
<div class="actions">
${approve}<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
  );
}

/** A request that cannot be sent back to the application: shown, never redirected. */
export function errorPage(status: number, error: string, description: string): HtmlPage {
  return page(
    status,
    'Authorization failed',
    `<h1>This authorization request cannot be answered</h1>
<p role="alert">${escapeHtml(description)}</p>
<p class="note">Error: <span class="error-code">${escapeHtml(error)}</span>. The application was not contacted; go back to it and start again.</p>`,
  );
}
