"""Guard rails enforced below everything that could bypass them: in the browser session, not
in each tool. :mod:`~pagesight.guard.origins` says which origins a browser may load;
:mod:`~pagesight.guard.interception` makes Chromium itself ask before loading a document."""
