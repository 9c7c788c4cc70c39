"""The generated pages of the documentation site (``docs/``), each written from the code
that defines what it lists, so the documentation cannot drift from the code.

``python -m pressroom.docs`` rewrites them all (``bash scripts/docs generate`` also
retakes the screenshots); ``--check`` writes nothing and names every stale page, as the
test suite does. Whole pages are listed in ``pages.PAGES``; tables generated inside
pages written by hand sit between ``<!-- NAME: ... -->`` and ``<!-- end NAME -->``
markers, listed in ``pages.SECTIONS``.
"""
