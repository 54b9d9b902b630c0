/**
 * The app shell for opening offline: the page and the files it loads, same origin only. Network
 * first (a new build shows at once online); offline, the copy kept from the last visit. The data
 * is not here: the client kit keeps the cache in localStorage.
 */
const SHELL = 'plans-example-shell-v1';

self.addEventListener('install', (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(SHELL);
      const page = await fetch('/', { cache: 'no-store' });
      const html = await page.clone().text();
      await cache.put('/', page);
      // The built page names its scripts, styles and icon: keep them with it.
      const files = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((match) => match[1]);
      await cache.addAll([...new Set(files)]);
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  // Every page of the app is the one page: the client routes.
  const key = request.mode === 'navigate' ? '/' : request.url;
  event.respondWith(
    fetch(request).then(
      (response) => {
        if (response.ok) {
          const copy = response.clone();
          event.waitUntil(caches.open(SHELL).then((cache) => cache.put(key, copy)));
        }
        return response;
      },
      () => caches.match(key).then((kept) => kept ?? Response.error()),
    ),
  );
});
