"""ML Workload Debugging Wiki: the engine behind the wiki's pages, actions and workflows."""

__version__ = "0.1.0"
