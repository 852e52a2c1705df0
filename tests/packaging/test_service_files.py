"""The office agent's service definitions (packaging/systemd, packaging/macos, packaging/windows): each parses,
has what its service manager requires, and starts a `linkvet agent` command line linkvet accepts. The
systemd unit is checked by `systemd-analyze` itself (with and without its drop-ins); its sandbox (address
families, system calls, no capabilities) is checked against what a real round of every probe kind uses,
measured by a plan file's scheduler and by the agent following an evaluation."""

from __future__ import annotations

import plistlib
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from catalogs.evaluation.model import EXAMPLE_EVALUATION
from tests.conftest import REPO_ROOT, cli_env

PACKAGING = REPO_ROOT / "packaging"
UNIT = PACKAGING / "systemd" / "linkvet-agent.service"
DROP_IN = PACKAGING / "systemd" / "linkvet-agent.service.d" / "raw-icmp.conf"
TEAM_DROP_IN = PACKAGING / "systemd" / "linkvet-agent.service.d" / "team-store.conf"
PLIST = PACKAGING / "macos" / "local.linkvet.agent.plist"
TASK = PACKAGING / "windows" / "linkvet-agent.xml"
TASK_NS = {"t": "http://schemas.microsoft.com/windows/2004/02/mit/task"}

needs_systemd_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="needs systemd-analyze (apt-get install systemd)"
)


def unit_values(path: Path, key: str) -> list[str]:
    """Every value of `key` in a unit file (continuation lines are not used in ours)."""
    return [line.split("=", 1)[1] for line in path.read_text().splitlines() if line.startswith(f"{key}=")]


def assert_agent_command(argv: list[str]) -> None:
    """`argv` (program and arguments) is a `linkvet agent` daemon's command line linkvet's own parser accepts."""
    from desktop.cli import build_parser

    assert Path(argv[0].replace("\\", "/")).stem == "linkvet", argv[0]
    args = build_parser("agent").parse_args(argv[1:])
    assert args.command == "agent" and not args.once and not args.check and not args.status
    assert args.log_file is not None


# -- systemd -----------------------------------------------------------------------------------------------


def verifiable_copy(tmp_path: Path, *, with_drop_in: bool, extra: str = "") -> Path:
    """The unit in a unit folder of its own (with the drop-in if asked), its ExecStart pointed at an
    executable that exists here (verify checks that it does; /opt/linkvet is not installed on this machine)."""
    stand_in = tmp_path / "bin" / "linkvet"
    stand_in.parent.mkdir(parents=True, exist_ok=True)
    stand_in.write_text("#!/bin/sh\n")
    stand_in.chmod(0o755)
    units = tmp_path / "units"
    units.mkdir(exist_ok=True)
    text = UNIT.read_text().replace("/opt/linkvet/bin/linkvet", str(stand_in))
    (units / UNIT.name).write_text(text.replace("[Install]", f"{extra}\n[Install]") if extra else text)
    if with_drop_in:
        (units / DROP_IN.parent.name).mkdir(exist_ok=True)
        shutil.copy(DROP_IN, units / DROP_IN.parent.name / DROP_IN.name)
        shutil.copy(TEAM_DROP_IN, units / DROP_IN.parent.name / TEAM_DROP_IN.name)
    return units


def systemd_analyze(units: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "SYSTEMD_UNIT_PATH": f"{units}:", "SYSTEMD_COLORS": "0"}
    return subprocess.run(
        ["systemd-analyze", *args, str(units / UNIT.name)],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@needs_systemd_analyze
@pytest.mark.parametrize("with_drop_in", [False, True], ids=["unit", "unit+drop-ins"])
def test_systemd_analyze_verify_finds_nothing_to_say(tmp_path: Path, with_drop_in: bool) -> None:
    checked = systemd_analyze(verifiable_copy(tmp_path, with_drop_in=with_drop_in), "verify")
    assert checked.returncode == 0 and checked.stderr == "" and checked.stdout == "", checked.stderr


@needs_systemd_analyze
def test_systemd_analyze_verify_would_name_a_mistake(tmp_path: Path) -> None:
    checked = systemd_analyze(
        verifiable_copy(tmp_path, with_drop_in=False, extra="ProtectSystm=strict"), "verify"
    )
    assert "Unknown key" in checked.stderr and "ProtectSystm" in checked.stderr


@needs_systemd_analyze
def test_the_unit_is_rated_ok_by_systemd_analyze_security(tmp_path: Path) -> None:
    for with_drop_in in (False, True):
        rated = systemd_analyze(
            verifiable_copy(tmp_path, with_drop_in=with_drop_in), "security", "--offline=yes"
        )
        level = re.search(r"Overall exposure level for \S+: (\d+\.\d+) (\w+)", rated.stdout)
        assert level, rated.stdout + rated.stderr
        # 0 is the most locked down, 10 fully exposed; "OK" is systemd's band below 2.0. A probe must reach
        # any address, which alone costs 0.5 (PrivateNetwork) + 0.2 (IPAddressDeny).
        assert float(level.group(1)) <= 2.0 and level.group(2) == "OK", rated.stdout


def test_the_unit_holds_no_capability_and_the_drop_in_only_cap_net_raw() -> None:
    assert unit_values(UNIT, "CapabilityBoundingSet") == [""] and unit_values(
        UNIT, "AmbientCapabilities"
    ) == [""]
    assert unit_values(UNIT, "DynamicUser") == ["yes"] and unit_values(UNIT, "NoNewPrivileges") == ["yes"]
    assert unit_values(DROP_IN, "CapabilityBoundingSet") == ["CAP_NET_RAW"]
    assert unit_values(DROP_IN, "AmbientCapabilities") == ["CAP_NET_RAW"]


def test_the_unit_starts_an_agent_command_linkvet_accepts() -> None:
    (exec_start,) = unit_values(UNIT, "ExecStart")
    directories = {
        "${CONFIGURATION_DIRECTORY}": "/etc/linkvet",
        "${STATE_DIRECTORY}": "/var/lib/linkvet",
        "${LOGS_DIRECTORY}": "/var/log/linkvet",
    }
    for variable, directory in directories.items():
        exec_start = exec_start.replace(variable, directory)
    # $LINKVET_AGENT_ARGS (unbraced) is split into words, and is nothing where agent.env does not set it.
    for extra in ("", "--carrier ct --metrics-listen 127.0.0.1:9108"):
        argv = shlex.split(exec_start.replace("$LINKVET_AGENT_ARGS", extra))
        assert "$" not in " ".join(argv)
        assert_agent_command(argv)
    assert unit_values(UNIT, "StateDirectory") == ["linkvet"] and unit_values(UNIT, "LogsDirectory") == [
        "linkvet"
    ]
    # Without LINKVET_DB in agent.env, the store is the SQLite file in the data directory: the state directory.
    assert unit_values(UNIT, "EnvironmentFile") == ["-/etc/linkvet/agent.env"]
    assert "XDG_DATA_HOME=/var/lib" in unit_values(UNIT, "Environment")[0].split()
    assert unit_values(TEAM_DROP_IN, "Environment") == ["PGPASSFILE=%d/pgpass"]
    assert unit_values(TEAM_DROP_IN, "LoadCredential") == ["pgpass:/etc/linkvet/pgpass"]


# -- the unit's sandbox against a real round ------------------------------------------------------------------


def syscall_groups() -> dict[str, set[str]]:
    """systemd's system call groups (`systemd-analyze syscall-filter`), nested groups as `@name` members."""
    out = subprocess.run(
        ["systemd-analyze", "syscall-filter"], capture_output=True, text=True, check=True
    ).stdout
    groups: dict[str, set[str]] = {}
    current: str | None = None
    for line in out.splitlines():
        if line.startswith("@"):
            current = line.strip()
            groups[current] = set()
        elif not line.startswith(" "):
            current = None
        elif current and line.strip() and not line.strip().startswith("#"):
            groups[current].add(line.strip())
    return groups


def expand(groups: dict[str, set[str]], name: str) -> set[str]:
    calls: set[str] = set()
    for member in groups[name]:
        calls |= expand(groups, member) if member.startswith("@") else {member}
    return calls


def allowed_syscalls() -> set[str]:
    """What the unit's SystemCallFilter= lines allow (an allow list, then `~` lines taking groups out)."""
    groups = syscall_groups()
    allowed: set[str] = set()
    for value in unit_values(UNIT, "SystemCallFilter"):
        names = value.lstrip("~").split()
        calls = set().union(*(expand(groups, n) if n.startswith("@") else {n} for n in names))
        allowed = allowed - calls if value.startswith("~") else allowed | calls
    return allowed


SANDBOX_PLAN = """\
version = 1
name = "sandbox"
vantage = "test"
[schedule]
every = "5m"
[defaults]
count = 3
interval = 0.05
timeout = 1.0
[defaults.trace]
count = 1
max_hops = 2
[[targets]]
name = "v4"
host = "127.0.0.1"
methods = ["icmp", "tcp", "trace"]
port = 9
[[targets]]
name = "v6"
host = "::1"
methods = ["icmp", "tcp"]
port = 9
[[targets]]
name = "dual-stack name"
host = "dual.test"
methods = ["icmp"]
[[targets]]
name = "web"
url = "http://127.0.0.1:{port}/ok"
methods = ["http"]
"""

SANDBOX_EVALUATION = """\
format = "linkvet-evaluation"
format_version = 1
name = "sandbox"

[[candidates]]
provider = "lambda"
region = "us-west-1"
endpoints = ["127.0.0.1:9", "::1", "dual.test", "http://127.0.0.1:{port}/ok"]
catalog_endpoints = false

[needs]
""" + EXAMPLE_EVALUATION.read_text(encoding="utf-8").partition("\n[needs]\n")[2]

# Tools the sandbox test needs beside root: network and mount namespaces, dropping privileges, tracing.
SANDBOX_TOOLS = ("ip", "unshare", "setpriv", "strace", "systemd-analyze")


def sandboxed(
    ns: str, tmp_path: Path, argv: list[str], *, capability: str | None
) -> subprocess.CompletedProcess[str]:
    """Run `python ARGS` as the unit would run it, under strace: inside the test's network namespace, with a
    hosts file naming dual.test (127.0.0.1 and ::1), as an unprivileged user (65534) with no capability but
    `capability` (and CAP_DAC_READ_SEARCH, only so that user reaches this checkout and interpreter), with
    no_new_privs, and with memory that is never writable and executable at once (PR_SET_MDWE, what
    MemoryDenyWriteExecute= enforces)."""
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 localhost\n::1 localhost\n127.0.0.1 dual.test\n::1 dual.test\n")
    keep = ",".join(["+dac_read_search", *([f"+{capability}"] if capability else [])])
    mdwe = (
        "import ctypes, os, sys\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "if libc.prctl(65, 1, 0, 0, 0) != 0:\n"  # PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN
        "    sys.exit('PR_SET_MDWE: ' + os.strerror(ctypes.get_errno()))\n"
        "os.execv(sys.argv[1], sys.argv[1:])\n"
    )
    inner = [
        "setpriv",
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        f"--inh-caps=-all,{keep}",
        f"--ambient-caps={keep}",
        f"--bounding-set=-all,{keep}",
        "--no-new-privs",
        "--",
        sys.executable,
        "-c",
        mdwe,
        "/usr/bin/env",
        f"PYTHONPATH={REPO_ROOT}",
        f"HOME={tmp_path}",
        "strace",
        "-f",
        "-qq",
        "-o",
        str(tmp_path / "strace.txt"),
        sys.executable,
        *argv,
    ]
    script = f"mount --bind {shlex.quote(str(hosts))} /etc/hosts && exec {shlex.join(inner)}"
    return subprocess.run(
        ["ip", "netns", "exec", ns, "unshare", "--mount", "sh", "-c", script],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )


def traced(tmp_path: Path) -> tuple[set[str], set[str]]:
    """(address families of the sockets opened, system calls made) in the last sandboxed run."""
    text = (tmp_path / "strace.txt").read_text()
    families = set(re.findall(r"\bsocket(?:pair)?\((AF_[A-Z0-9]+)", text))
    calls = set(re.findall(r"^\d+ +([a-z_0-9]+)\(", text, re.MULTILINE))
    return families, calls


@pytest.fixture
def sandbox_netns():  # type: ignore[no-untyped-def]
    import os

    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("needs Linux and root (network namespaces; CI runs as root)")
    missing = [tool for tool in SANDBOX_TOOLS if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (apt-get install iproute2 util-linux strace systemd)")
    from tests.netns import namespaces

    with namespaces(1) as (ns,):
        yield ns


def start_http_server(ns, tmp_path: Path) -> tuple[subprocess.Popen[bytes], int]:  # type: ignore[no-untyped-def]
    port = 18080
    server = subprocess.Popen(
        [
            "ip",
            "netns",
            "exec",
            ns.name,
            sys.executable,
            "-m",
            "http.server",
            "--bind",
            "127.0.0.1",
            str(port),
        ],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):  # until it listens (the namespace is ours alone: nothing else holds the port)
        probe = subprocess.run(
            ["ip", "netns", "exec", ns.name, "ss", "-ltnH", f"sport = :{port}"],
            capture_output=True,
            text=True,
        )
        if probe.stdout.strip():
            break
        subprocess.run(["sleep", "0.05"])
    return server, port


def test_a_round_of_every_probe_kind_runs_inside_the_units_sandbox(sandbox_netns, tmp_path: Path) -> None:
    ns = sandbox_netns
    # As on current Ubuntu: every group may open unprivileged ICMP sockets (a per-namespace setting).
    ns.sysctl("net.ipv4.ping_group_range", "0 2147483647")
    tmp_path.chmod(0o777)
    (tmp_path / "index.html").write_text("ok")
    (tmp_path / "ok").write_text("ok")
    in_force = sandboxed(
        ns.name,
        tmp_path,
        ["-c", "import ctypes; print(ctypes.CDLL(None).prctl(66, 0, 0, 0, 0))"],
        capability=None,
    )
    assert in_force.stdout.strip() == "1", in_force.stderr  # PR_GET_MDWE: refuse-exec-gain, through the execs
    server, port = start_http_server(ns, tmp_path)
    try:
        plan = tmp_path / "plan.toml"
        plan.write_text(SANDBOX_PLAN.replace("{port}", str(port)))
        db, log = tmp_path / "store.sqlite3", tmp_path / "linkvet.log"
        command = [
            "-m",
            "desktop.cli",
            "schedule",
            "--plan",
            str(plan),
            "--once",
            "--db",
            str(db),
            "--log-file",
            str(log),
        ]
        done = sandboxed(ns.name, tmp_path, command, capability=None)
        assert done.returncode == 0, done.stdout + done.stderr
        families, calls = traced(tmp_path)
        # What the unit runs: the agent following an evaluation (its download and latency under load too).
        evaluation = tmp_path / "sandbox-eval.toml"
        evaluation.write_text(SANDBOX_EVALUATION.replace("{port}", str(port)), encoding="utf-8")
        agents_db = tmp_path / "agent.sqlite3"
        imported = subprocess.run(
            [sys.executable, "-m", "desktop.cli", "eval", "import", str(evaluation), "--db", str(agents_db)],
            cwd=tmp_path,
            env={**cli_env(tmp_path), "HOME": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert imported.returncode == 0, imported.stderr
        agents_db.chmod(0o666)
        agent = ["-m", "desktop.cli", "agent", "--once", "--db", str(agents_db), "--log-file", str(log)]
        followed = sandboxed(ns.name, tmp_path, agent, capability=None)
        assert followed.returncode == 0, followed.stdout + followed.stderr
        assert "0 failed, 0 with loss" in followed.stderr and "download" in followed.stdout, followed.stdout
        more_families, more_calls = traced(tmp_path)
        families |= more_families
        calls |= more_calls
        # Every target measured, without loss, with no capability: ICMP went through ping sockets.
        assert "0 failed, 0 with loss" in done.stderr, done.stdout + done.stderr
        strace = (tmp_path / "strace.txt").read_text()
        assert "SOCK_RAW|SOCK_CLOEXEC, IPPROTO_ICMP) = -1 EPERM" in strace
        assert re.search(r"SOCK_DGRAM\|SOCK_CLOEXEC, IPPROTO_ICMP\) = \d+", strace)
        for protocol in ("udp", "tcp"):  # the traceroute kinds a plan's [defaults.trace] can choose
            traced_run = sandboxed(
                ns.name,
                tmp_path,
                [
                    "-m",
                    "desktop.cli",
                    "trace",
                    "127.0.0.1",
                    "-P",
                    protocol,
                    "-m",
                    "2",
                    "-q",
                    "1",
                    "--no-store",
                ],
                capability=None,
            )
            assert traced_run.returncode == 0, traced_run.stdout + traced_run.stderr
            more_families, more_calls = traced(tmp_path)
            families |= more_families
            calls |= more_calls
    finally:
        server.terminate()
        server.wait(10)
    allowed_families = set(unit_values(UNIT, "RestrictAddressFamilies")[0].split())
    assert families <= allowed_families, f"the unit blocks {families - allowed_families}"
    assert (
        "AF_NETLINK" in families
    )  # getaddrinfo ordering dual.test's two addresses: the unit's comment says so
    allowed = allowed_syscalls()
    assert calls <= allowed, f"the unit's SystemCallFilter= refuses {sorted(calls - allowed)}"


def test_without_ping_sockets_the_drop_in_capability_is_what_icmp_needs(
    sandbox_netns, tmp_path: Path
) -> None:
    ns = sandbox_netns
    ns.sysctl("net.ipv4.ping_group_range", "1 0")  # as on Debian 12: nobody may open ping sockets
    tmp_path.chmod(0o777)
    argv = ["-m", "desktop.cli", "probe", "127.0.0.1", "-c", "2", "--interval", "0.05", "--no-store"]
    refused = sandboxed(ns.name, tmp_path, argv, capability=None)
    assert refused.returncode == 1 and "ICMP not permitted" in refused.stdout + refused.stderr
    (drop_in_capability,) = unit_values(DROP_IN, "AmbientCapabilities")
    granted = sandboxed(ns.name, tmp_path, argv, capability=drop_in_capability.lower().removeprefix("cap_"))
    assert granted.returncode == 0, granted.stdout + granted.stderr
    assert re.search(r"SOCK_RAW\|SOCK_CLOEXEC, IPPROTO_ICMP\) = \d+", (tmp_path / "strace.txt").read_text())


# -- launchd (macOS) -------------------------------------------------------------------------------------------


def test_the_launchd_plist_has_launchds_required_keys_and_types() -> None:
    with PLIST.open("rb") as fh:
        job = plistlib.load(fh)
    assert job["Label"] == PLIST.stem  # launchctl finds a daemon by the label its file is named after
    assert isinstance(job["ProgramArguments"], list) and all(
        isinstance(a, str) for a in job["ProgramArguments"]
    )
    assert job["ProgramArguments"][0].startswith("/")  # launchd does not search PATH for ProgramArguments[0]
    types = {
        "UserName": str,
        "GroupName": str,
        "WorkingDirectory": str,
        "RunAtLoad": bool,
        "KeepAlive": dict,
        "ThrottleInterval": int,
        "ExitTimeOut": int,
        "ProcessType": str,
        "Umask": int,
        "StandardOutPath": str,
        "StandardErrorPath": str,
    }
    types["EnvironmentVariables"] = dict
    assert set(job) == {"Label", "ProgramArguments", *types}, set(job) ^ {"Label", "ProgramArguments", *types}
    for key, kind in types.items():
        assert type(job[key]) is kind, key
    assert job["UserName"].startswith("_")  # a role account, not root
    assert job["KeepAlive"] == {"SuccessfulExit": False}
    assert job["ProcessType"] in ("Background", "Standard", "Adaptive", "Interactive")
    assert job["ProcessType"] != "Background" and job["Umask"] == 0o077 and job["ExitTimeOut"] >= 15
    assert_agent_command(job["ProgramArguments"])
    assert set(job["EnvironmentVariables"]) == {"LINKVET_DB", "PGPASSFILE"}
    assert job["EnvironmentVariables"]["LINKVET_DB"].startswith("/Library/Application Support/linkvet/")


# -- Task Scheduler (Windows) ----------------------------------------------------------------------------------

# settingsType's elements in the Task Scheduler schema (version 1.2, the task's version attribute).
TASK_SETTINGS = {
    "AllowStartOnDemand", "RestartOnFailure", "MultipleInstancesPolicy", "DisallowStartIfOnBatteries",
    "StopIfGoingOnBatteries", "AllowHardTerminate", "StartWhenAvailable", "NetworkProfileName",
    "RunOnlyIfNetworkAvailable", "WakeToRun", "Enabled", "Hidden", "DeleteExpiredTaskAfter", "IdleSettings",
    "NetworkSettings", "ExecutionTimeLimit", "Priority", "RunOnlyIfIdle",
}  # fmt: skip
TASK_TRIGGERS = {"BootTrigger", "RegistrationTrigger", "IdleTrigger", "TimeTrigger", "EventTrigger", "LogonTrigger",
                 "SessionStateChangeTrigger", "CalendarTrigger"}  # fmt: skip
DURATION = re.compile(r"-?P(?=\d|T\d)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?")


def test_the_scheduled_task_has_what_the_task_scheduler_schema_requires() -> None:
    root = ET.parse(TASK).getroot()
    assert root.tag == f"{{{TASK_NS['t']}}}Task" and root.get("version") == "1.2"
    children = [child.tag.split("}")[1] for child in root]
    assert len(children) == len(set(children))  # taskType is an xs:all: each part at most once
    assert set(children) <= {"RegistrationInfo", "Triggers", "Settings", "Data", "Principals", "Actions"}
    actions = root.find("t:Actions", TASK_NS)
    assert actions is not None, "Actions is the one part a task must have"
    execs = actions.findall("t:Exec", TASK_NS)
    assert len(execs) == 1 and (execs[0].findtext("t:Command", namespaces=TASK_NS) or "").strip()
    principals = root.findall("t:Principals/t:Principal", TASK_NS)
    # The schema's keyref: the Actions' Context names a Principal id.
    assert actions.get("Context") in {p.get("id") for p in principals}
    (principal,) = principals
    assert principal.findtext("t:UserId", namespaces=TASK_NS) == "S-1-5-19"  # LOCAL SERVICE
    assert principal.findtext("t:RunLevel", namespaces=TASK_NS) == "LeastPrivilege"
    logon = principal.findtext("t:LogonType", namespaces=TASK_NS)
    assert logon in (None, "S4U", "Password", "InteractiveToken", "InteractiveTokenOrPassword")
    triggers = [t.tag.split("}")[1] for t in root.find("t:Triggers", TASK_NS) or []]
    assert triggers == ["BootTrigger"] and set(triggers) <= TASK_TRIGGERS
    settings = root.find("t:Settings", TASK_NS)
    assert settings is not None
    names = [s.tag.split("}")[1] for s in settings]
    assert set(names) <= TASK_SETTINGS and len(names) == len(set(names)), names
    for duration in [*root.iter(f"{{{TASK_NS['t']}}}Delay"), *root.iter(f"{{{TASK_NS['t']}}}Interval"),
                     settings.find("t:ExecutionTimeLimit", TASK_NS)]:  # fmt: skip
        assert duration is not None and DURATION.fullmatch(duration.text or ""), duration
    assert (
        settings.findtext("t:ExecutionTimeLimit", namespaces=TASK_NS) == "PT0S"
    )  # never stopped for running
    assert 4 <= int(settings.findtext("t:Priority", namespaces=TASK_NS) or "7") <= 6  # normal priority
    restart = settings.find("t:RestartOnFailure", TASK_NS)
    assert restart is not None and 1 <= int(restart.findtext("t:Count", namespaces=TASK_NS) or "0") <= 999
    command = (execs[0].findtext("t:Command", namespaces=TASK_NS) or "").strip('"')
    arguments = execs[0].findtext("t:Arguments", namespaces=TASK_NS) or ""
    assert_agent_command([command, *shlex.split(arguments)])
