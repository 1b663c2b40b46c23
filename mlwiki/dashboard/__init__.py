"""The GKE Capacity & Triage dashboard (`mlwiki dashboard`): cluster state → summary → web page.

`state` loads cluster objects (a recorded snapshot or live clusters through `live`), `summary`
turns them into capacity, node pool, workload and event rows, `app` serves them as HTML and JSON,
and `server` binds it to the loopback interface.
"""
