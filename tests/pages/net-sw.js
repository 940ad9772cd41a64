// A service worker: fetches the URL the page posts it and answers how that went.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('message', (e) => {
  fetch(e.data).then(
    r => e.source.postMessage('sw fetch ' + r.status),
    () => e.source.postMessage('sw fetch error'));
});
