// A dedicated worker (see ready-children.html): told to go, fetch slowly, then tell the page.
// (Not at once when it starts: Playwright resumes a new worker before pagesight's session
// listens to it, so a request of that first moment is only seen once answered.)
onmessage = () => {
  fetch("/slow?ms=1200")
    .then((r) => r.json())
    .then((answer) => postMessage(`Worker feed arrived after ${answer.slept_ms} ms`));
};
