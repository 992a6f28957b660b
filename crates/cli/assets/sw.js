// The service worker of the static site (`cargo xtask web`): it keeps
// every file of the site, so that the game opens and plays with no network.
// `cargo xtask web` writes the build's stamp and file list below; a new
// build is a new stamp, so the browser installs this worker again, which
// fetches the new files into a cache of their own. It then waits: an open
// page, and every worker it starts, keep the files of one build (a worker
// restarted later gets the page's own worker.js, npuzzle.js and engine)
// until the player takes the page's "new version" notice (the page posts
// "update") or closes every page of the site; the old files are dropped
// then. Every path is relative to this file: the site works from any
// folder (https://example.org/npuzzle/).
// The 4x4 coach's tables are not here: the page's worker (worker.js) keeps
// them in IndexedDB.
"use strict";

const BUILD = "__NPUZZLE_BUILD__";
const FILES = [/* __NPUZZLE_FILES__ */];
const CACHE = `npuzzle-site-${BUILD}`;
/** The page, as the browser asks for it ("./", the folder). */
const PAGE = "./";

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // Asked again of the server ("no-cache": a copy in the HTTP cache is
    // checked first), so that no file of an older build is kept.
    await cache.addAll([PAGE, ...FILES].map((file) => new Request(file, { cache: "no-cache" })));
    // The first build takes over at once: no page runs an older one.
    if (!self.registration.active) await self.skipWaiting();
  })());
});

self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "update") self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("npuzzle-site-") && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || new URL(request.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    // The site's files from the cache (a link's #board=... is not sent;
    // ?query is ignored).
    const cached = await cache.match(request, { ignoreSearch: true });
    if (cached) return cached;
    try {
      return await fetch(request);
    } catch (error) {
      // Offline, a page of the site not kept (index.html?x, a folder
      // asked without its slash...): the game itself.
      if (request.mode === "navigate") {
        const page = await cache.match(PAGE);
        if (page) return page;
      }
      throw error;
    }
  })());
});
