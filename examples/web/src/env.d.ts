/** The variables the app reads from Vite (`import.meta.env`), set when it is built or served. */
interface ImportMetaEnv {
  /** The gateway's URL (examples/web/README.md); unset: the page's own origin. */
  readonly VITE_GATEWAY_URL?: string;
}
