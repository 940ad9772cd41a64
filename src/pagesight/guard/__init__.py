"""Guard rails enforced below everything that could bypass them: in the browser session, not
in each tool. :mod:`~pagesight.guard.origins` says which origins a browser may load;
:mod:`~pagesight.guard.interception` makes Chromium itself ask before loading a document;
:mod:`~pagesight.guard.risk` holds the rules saying which actions need a person (pure: the
page reads the facts they judge, the agent's gate asks the person). Guard imports nothing of
the layers above it."""
