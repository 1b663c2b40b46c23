"""Local stand-ins for Google Cloud and Kubernetes servers, started by tests on 127.0.0.1."""
