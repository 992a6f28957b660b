// The service worker of the static site (`cargo xtask web`): it keeps
// every file of the site, so that the game opens and plays with no network.
// `cargo xtask web` writes the build's stamp and file list below.
"use strict";

const BUILD = "__NPUZZLE_BUILD__";
const FILES = [/* __NPUZZLE_FILES__ */];
const CACHE = `npuzzle-site-${BUILD}`;

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // "./" is the page itself, as the browser asks for it.
    await cache.addAll(["./", ...FILES]);
    await self.skipWaiting();
  })());
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
    const cached = await cache.match(request, { ignoreSearch: true });
    if (cached) return cached;
    return fetch(request);
  })());
});
