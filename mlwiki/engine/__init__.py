"""The execution engine: typed parameters, safe rendering, actions, workflows, approval, audit.

Entry points for other parts of the tool (the CLI, `mlwiki troubleshoot`, the MCP server):

- `mlwiki.engine.workflows.run_workflow(wiki, workflow_id, params, session, …) -> WorkflowRun`
- `mlwiki.engine.actions.run_action(wiki, action_id, params, session, …) -> ActionResult`
- `mlwiki.engine.params.parse_param_args(["k=v", …])` for `--param` options.

Nothing here imports a heavy client at module level; kubectl and gcloud run as argument lists.
"""
