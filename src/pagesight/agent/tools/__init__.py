"""The built-in tools, one a module: each module ``name`` defines ``async def name(session, …)``.

See :mod:`pagesight.agent.registry` for how they are found and :mod:`pagesight.agent.tool`
for how a schema is derived from a function.
"""
