// A dedicated worker: its own fetch and WebSocket, to the origins the page passes it.
onmessage = (e) => {
  const {other, rec} = e.data;
  fetch(other + '/slow?ms=0').then(
    r => postMessage({name: 'fetch', value: r.status}),
    () => postMessage({name: 'fetch', value: 'error'}));
  const ws = new WebSocket(rec.replace('http', 'ws') + '/ws-worker');
  ws.onopen = () => { postMessage({name: 'ws', value: 'open'}); ws.close(); };
  ws.onerror = () => postMessage({name: 'ws', value: 'error'});
};
