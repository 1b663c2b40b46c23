"""The agents' mutation gate: the decision table and the hook script as the agents run it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from mlwiki.guard import judge
from tests.conftest import REPO_ROOT

HOOK = REPO_ROOT / ".claude" / "hooks" / "mutation_gate.py"

MUTATING = [
    "kubectl --context prod delete pod x",
    "KUBECONFIG=/tmp/k kubectl cordon gke-node-1",
    "kubectl get pods && kubectl delete pod y",
    "kubectl get pods || kubectl drain n1 --ignore-daemonsets",
    "kubectl get pods; kubectl uncordon n1",
    "sudo -u root kubectl drain n1",
    "sudo -E kubectl taint nodes n google.com/tpu=bad:NoSchedule",
    "env A=1 kubectl taint nodes n k=v:NoSchedule",
    "env -i PATH=/usr/bin kubectl patch node n -p '{}'",
    "echo pod-x | xargs -n1 kubectl delete pod",
    "bash -c 'kubectl delete ns foo'",
    'sh -c "gcloud compute instances reset vm --zone us-central2-b"',
    "bash -lc 'kubectl scale jobset x --replicas=0'",
    "echo $(kubectl delete pod x)",
    "echo `kubectl scale deploy x --replicas=0`",
    "diff <(kubectl get po) <(kubectl delete po x)",
    "kubectl rollout restart ds/x",
    "kubectl rollout undo deploy/x",
    "gcloud compute tpus tpu-vm delete x --zone us-east5-a",
    "gcloud container node-pools delete pool --cluster c",
    "gcloud container clusters resize c --node-pool p --num-nodes 0",
    "gcloud compute instances stop vm-1",
    "mlwiki run drain-node --approve drain",
    "python3 -m mlwiki action cordon-node --param node=n --approve",
    "_wiki/.venv/bin/mlwiki action delete-pod --param pod=p --approve",
    "find . -name '*.yaml' -exec kubectl apply -f {} \\;",
    "(cd manifests; kubectl apply -f job.yaml)",
    "kubectl get pod x\nkubectl delete pod x",
    "/usr/bin/kubectl label node n a=b",
    "kubectl annotate pod p a=b",
    "kubectl exec -it trainer-0 -- bash",
    "nice -n 10 kubectl cp p:/tmp/x ./x",
    "timeout 30s kubectl debug node/n -it --image=busybox",
    "helm upgrade --install x chart/",
    "kubectl 'delete' pod x",
    "if true; then kubectl delete pod x; fi",
    "eval 'kubectl delete pod x'",
    "kubectl create -f job.yaml",
    "kubectl replace --force -f job.yaml",
    "kubectl set image deploy/x c=img",
    "kubectl config use-context prod",
    'kubectl "unbalanced',
    "mlwiki handoff llm-pretrain 123 --bucket cc-bucket",
    "kubectl frobnicate pods",
    "env -S 'kubectl delete pod x'",
    "gcloud container clusters get-credentials c --zone z",
]
READ_ONLY = [
    "kubectl get pods -A -o json",
    "kubectl --context gke_p_z_c -n ml describe pod trainer-0",
    "kubectl logs trainer-0 --previous",
    "kubectl get events -A --field-selector type=Warning",
    "kubectl -n kube-system rollout status ds/tpu-device-plugin",
    "kubectl rollout history deploy/x",
    "kubectl auth can-i delete pods",
    "kubectl top nodes",
    "timeout 30 kubectl get nodes",
    "watch -n 5 kubectl get pods",
    "gcloud logging read 'resource.type=k8s_container' --format=json",
    "gcloud compute instances list --filter=name~gke",
    "gcloud compute operations list --filter='operationType=compute.instances.preempted'",
    "helm list -A",
    "mlwiki run verify-host-oom-killed --dry-run",
    "mlwiki troubleshoot llm-pretrain --bundle _wiki/examples/llm-pretrain-oom --format json",
    "mlwiki handoff --watch mlwiki-x --bucket b --once",
    "grep -r 'kubectl delete' docs/",
    "kubectl get pods -o json > out.json",
    "ls -la && pwd",
]


@pytest.mark.parametrize("command", MUTATING)
def test_mutating_commands_ask(command: str) -> None:
    assert judge(command).ask, command


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only_commands_pass(command: str) -> None:
    decision = judge(command)
    assert not decision.ask, decision.reason


def _hook(payload: object) -> tuple[int, str]:
    result = subprocess.run(
        [sys.executable, str(HOOK)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
    )
    return result.returncode, result.stdout


def test_claude_code_payload_gets_ask_and_exit_zero() -> None:
    code, out = _hook(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "kubectl drain n1"},
        }
    )
    assert code == 0
    decision = json.loads(out)["hookSpecificOutput"]
    assert decision["hookEventName"] == "PreToolUse"
    assert decision["permissionDecision"] == "ask"
    assert "kubectl drain" in decision["permissionDecisionReason"]


def test_claude_code_read_only_gets_no_opinion() -> None:
    code, out = _hook({"tool_name": "Bash", "tool_input": {"command": "kubectl get pods"}})
    assert (code, out) == (0, "")


def test_antigravity_payload_gets_decision() -> None:
    code, out = _hook(
        {
            "toolCall": {
                "name": "run_command",
                "args": {"CommandLine": "sudo kubectl cordon n1", "Cwd": "/"},
            }
        }
    )
    assert code == 0
    assert json.loads(out)["decision"] == "ask"
    code, out = _hook(
        {"toolCall": {"name": "run_command", "args": {"CommandLine": "kubectl get nodes"}}}
    )
    assert (code, json.loads(out)) == (0, {})


def test_unreadable_payload_asks_instead_of_failing_open() -> None:
    result = subprocess.run(
        [sys.executable, str(HOOK)], input="not json", capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert json.loads(result.stdout)["hookSpecificOutput"]["permissionDecision"] == "ask"


def test_settings_register_the_hook_for_bash() -> None:
    settings = json.loads((REPO_ROOT / ".claude" / "settings.json").read_text())
    handlers = [
        h
        for entry in settings["hooks"]["PreToolUse"]
        if entry["matcher"] == "Bash"
        for h in entry["hooks"]
    ]
    # The shell form (every Claude Code build runs it; older ones ignore the exec form's args),
    # through the launcher that finds the gate from any working directory.
    assert any(".claude/hooks/mutation-gate" in h["command"] and "args" not in h for h in handlers)
    assert (REPO_ROOT / ".claude" / "hooks" / "mutation_gate.py").is_file()
