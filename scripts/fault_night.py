"""The fault night: a small night of Landed while its workers, Redis and PostgreSQL are
killed and restarted under it, and the platform fails at random.

    make fault-night
    .venv/bin/python scripts/fault_night.py --accounts 20 --feeds 4 [--json]

Everything runs on private instances on free ports, never the machine's shared services:
a PostgreSQL cluster made here (initdb and pg_ctl from /usr/lib/postgresql/*/bin, run as the
``postgres`` user when this runs as root) and ``redis-server`` with its append-only file (as
docker-compose.yml runs it), both in a temporary folder removed at the end. The night is
``scripts/bench_night.py --faults`` against them (see FAULTS there: a supervisor restarts dead
workers, the recovery sweeps run every few seconds, the Graph sandbox answers 500 after
creating a post, drops the answer after creating it, or throttles it announcing a one-minute
regain (``--graph-throttle``, always passed here), at random). Meanwhile this script, watching
the night's task counters in Redis:

- SIGKILLs a worker process while a task of each stage is running, KILLS_PER_STAGE times
  per stage (research, compose, gate, publish, reconcile; approving runs in the bench's
  own process, and publishing runs alongside it);
- restarts Redis once composing has started, and PostgreSQL once publishing has started.

Invariants checked and printed (the exit status is 1 if one fails): every approved post
landed (approved_not_landed 0), none published twice (duplicates 0), every account with
articles of its own was composed (drafts, or the composer's recorded reasons), and every
stage finished by itself (the bench gives up on a stage after BENCH_NIGHT_STAGE_TIMEOUT_S).

The watchdogs run too (the jobs, publishing and research watchdogs and the alarms' outbox
delivery, on the sweeps' clock), with WATCHDOG_STUCK_MINUTES at 1: every publication unknown
past it must have its account's publications_stuck alarm open within the bench's
STUCK_ALARM_GRACE_S, and every alarm of the night must be resolved after recovery (each
watchdog runs once more at the end). Alarms print with their opening and resolution times on
this script's clock, beside the faults.

Throttles: each throttled post landed, nothing was sent to its channel before the announced
regain time, and the owner's History and the operator's console showed the pause.

The watchdog clock (docs/RELIABILITY.md): the long graces scaled down (WATCHDOG_JOB_GRACE_SCALE,
WATCHDOG_RESEARCH_OVERDUE_S, WATCHDOG_SOURCE_MAX_FAILURES, WATCHDOG_SOURCE_FAILING_HOURS), the
bench provokes job_down, research_starved (overdue), source_failing and
source_failing_for_account; each must open after it is due, within the bench's
ALARM_ALLOWANCE_S, and resolve.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
KILLS_PER_STAGE = 2
STAGES = {
    "research": "research.source_research",
    "compose": "posting.tasks.account_drafts_compose_task",
    "gate": "posting.tasks.draft_gate_task",
    "publish": "publish.tasks.publication_publish_task",
    "reconcile": "reconcile.tasks.publication_reconcile_task",
}
# The machine's own services: this script must never touch them.
SHARED_PORTS = {5432, 6379}
# The night's clock for the research runs a dead worker leaves open (production: 30 min).
RESEARCH_DEADLINE_S = 60
# The watchdog clock (see the environment below; production: 1, 4 h, 24 h).
WATCHDOG_JOB_GRACE_SCALE = 0.1
WATCHDOG_RESEARCH_OVERDUE_S = 150
WATCHDOG_SOURCE_FAILING_HOURS = 0.05
STAGE_TIMEOUT_S = 600


def free_port() -> int:
    while True:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = int(probe.getsockname()[1])
        if port not in SHARED_PORTS:
            return port


class Postgres:
    """A private PostgreSQL cluster in ``folder`` on ``port``."""

    def __init__(self, folder: Path, port: int) -> None:
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        if not bins:
            raise SystemExit("fault-night: no PostgreSQL binaries under /usr/lib/postgresql/*/bin")
        self.bin = Path(bins[-1])
        self.folder, self.port = folder, port
        self.data = folder / "pgdata"
        self.log = folder / "postgres.log"

    def _run(self, *argv: str) -> None:
        command = [str(self.bin / argv[0]), *argv[1:]]
        if os.geteuid() == 0:  # initdb refuses root: the cluster belongs to postgres
            command = ["runuser", "-u", "postgres", "--", *command]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)  # noqa: S603

    def init(self) -> None:
        if os.geteuid() == 0:
            shutil.chown(self.folder, user="postgres")
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "--no-sync")

    def _options(self) -> str:
        return f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-o", self._options(), "-l", str(self.log), "-w", "start")

    def restart(self) -> None:
        self._run(
            "pg_ctl", "-D", str(self.data), "-o", self._options(), "-l", str(self.log), "-m", "fast", "-w", "restart"
        )

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")


class Redis:
    """A private redis-server in ``folder`` on ``port``, persisting as production's does."""

    def __init__(self, folder: Path, port: int) -> None:
        self.folder, self.port = folder, port
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(  # noqa: S603
            [
                shutil.which("redis-server") or "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--appendonly",
                "yes",
                "--save",
                "",
            ],
            stdout=(self.folder / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("fault-night: redis-server did not start")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: it writes its append-only file and exits
            self.process.wait(timeout=30)

    def restart(self) -> None:
        self.stop()
        self.start()


def bench_workers(bench_pid: int) -> list[int]:
    """The bench's Celery worker processes (its children running scripts.bench_night_worker)."""
    pids = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
            cmdline = (status.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(bench_pid) and b"scripts.bench_night_worker" in cmdline:
            pids.append(int(status.parent.name))
    return pids


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--accounts", type=int, default=20)
    parser.add_argument("--feeds", type=int, default=4)
    parser.add_argument("--kills", type=int, default=KILLS_PER_STAGE, help="SIGKILLs per stage")
    parser.add_argument("--json", action="store_true", help="print only the closing JSON line")
    args = parser.parse_args()

    import redis

    folder = Path(tempfile.mkdtemp(prefix="fault-night-"))
    postgres, broker = Postgres(folder, free_port()), Redis(folder, free_port())
    faults: list[dict[str, Any]] = []
    started = time.monotonic()
    started_epoch = time.time()

    def record(fault: str, stage: str, **detail: Any) -> None:
        faults.append({"at_s": round(time.monotonic() - started, 1), "fault": fault, "stage": stage, **detail})
        if not args.json:
            print(f"{faults[-1]['at_s']:7.1f} s  {fault:<16} during {stage} {detail or ''}", flush=True)

    bench: subprocess.Popen[bytes] | None = None
    try:
        postgres.init()
        postgres.start()
        broker.start()
        env = dict(os.environ)
        env.update(
            DATABASE_URL=f"postgres://postgres@127.0.0.1:{postgres.port}/landed_faults",
            CELERY_BROKER_URL=f"redis://127.0.0.1:{broker.port}/0",
            REDIS_URL=f"redis://127.0.0.1:{broker.port}/1",
            RESEARCH_NIGHT_DEADLINE_S=str(RESEARCH_DEADLINE_S),
            BENCH_NIGHT_STAGE_TIMEOUT_S=str(STAGE_TIMEOUT_S),
            # The night's compressed clock for the publications-stuck watchdog (60 in production):
            # a killed worker's claim is unknown for 100 s before its read-back, so it must alarm.
            WATCHDOG_STUCK_MINUTES="1",
            # The watchdog clock (bench_night.py FAULTS): the long graces scaled down so that each
            # condition can be provoked and seen to alarm and resolve within the night. The
            # jobs' graces at a tenth (a 1-minute job is down 90 s after it last completed);
            # research overdue after 150 s without a finished run (4 h in production); a source
            # failing once alarms (3 in a row), and for its account after 3 minutes (24 h).
            WATCHDOG_JOB_GRACE_SCALE=str(WATCHDOG_JOB_GRACE_SCALE),
            WATCHDOG_RESEARCH_OVERDUE_S=str(WATCHDOG_RESEARCH_OVERDUE_S),
            WATCHDOG_SOURCE_MAX_FAILURES="1",
            WATCHDOG_SOURCE_FAILING_HOURS=str(WATCHDOG_SOURCE_FAILING_HOURS),
        )
        output = folder / "bench.out"
        bench = subprocess.Popen(  # noqa: S603
            [
                sys.executable,
                "scripts/bench_night.py",
                "--faults",
                "--graph-throttle",
                "--json",
                "--accounts",
                str(args.accounts),
                "--feeds",
                str(args.feeds),
            ],
            cwd=ROOT,
            env=env,
            stdout=output.open("wb"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        counters = redis.Redis(host="127.0.0.1", port=broker.port, db=1, socket_timeout=2)
        chance = random.Random(13)
        kills = dict.fromkeys(STAGES, 0)
        last_kill = 0.0
        restarted = {"redis": False, "postgres": False}
        while bench.poll() is None:
            time.sleep(0.3)
            try:
                started_tasks = {_text(k): int(v) for k, v in counters.hgetall("bench-night:started").items()}
                finished = {_text(k): int(v) for k, v in counters.hgetall("bench-night:finished").items()}
            except redis.RedisError:
                continue
            running = [s for s, task in STAGES.items() if started_tasks.get(task, 0) > finished.get(task, 0)]
            if "compose" in running and not restarted["redis"]:
                restarted["redis"] = True
                broker.restart()
                record("redis restart", "compose")
                continue
            if "publish" in running and not restarted["postgres"]:
                restarted["postgres"] = True
                postgres.restart()
                record("postgres restart", "publish")
                continue
            due = [s for s in running if kills[s] < args.kills]
            if not due or time.monotonic() - last_kill < 1.5:
                continue
            workers = bench_workers(bench.pid)
            if not workers:
                continue
            stage = due[0]
            victim = chance.choice(workers)
            try:
                os.kill(victim, signal.SIGKILL)
            except ProcessLookupError:
                continue
            kills[stage] += 1
            last_kill = time.monotonic()
            record("worker SIGKILL", stage, pid=victim)
        text = output.read_text(errors="replace")
        lines = [line for line in text.splitlines() if line.startswith("{")]
        if bench.returncode != 0 or not lines:
            print(text[-4000:], file=sys.stderr)
            raise SystemExit(f"fault-night: the night did not finish (exit {bench.returncode})")
        night = json.loads(lines[-1])
    finally:
        if bench is not None:
            # The bench, its workers, the sandbox and the feeds: its own process group.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(bench.pid, signal.SIGKILL)
        broker.stop()
        with contextlib.suppress(subprocess.CalledProcessError):
            postgres.stop()
        shutil.rmtree(folder, ignore_errors=True)

    # On this script's clock, the faults': the bench counts from the night's start, after setup.
    offset = night["faults"]["night_started_epoch"] - started_epoch
    alarms = [
        {
            **alarm,
            "opened_s": round(alarm["opened_s"] + offset, 1),
            "resolved_s": None if alarm["resolved_s"] is None else round(alarm["resolved_s"] + offset, 1),
        }
        for alarm in night["faults"]["alarms"]
    ]
    unresolved = [alarm for alarm in alarms if alarm["resolved_s"] is None]
    throttles = night["faults"]["throttles"]
    clock = [
        {
            **row,
            **{k: None if row[k] is None else round(row[k] + offset, 1) for k in ("due_s", "opened_s", "resolved_s")},
        }
        for row in night["faults"]["watchdog_clock"]
    ]
    checks = {
        "approved_not_landed == 0": night["approved_not_landed"] == 0,
        "duplicates == 0": night["duplicates"] == 0,
        "every account with articles was composed": night["faults"]["accounts_never_composed"] == 0,
        "every stage finished by itself": True,  # the bench exits non-zero when one does not
        "a kill in every stage": all(
            any(f["stage"] == s and f["fault"] == "worker SIGKILL" for f in faults) for s in STAGES
        ),
        # Every publication unknown past WATCHDOG_STUCK_MINUTES had its account's alarm open
        # within STUCK_ALARM_GRACE_S (bench_night.py's sampler), and every alarm resolved after.
        "publications_stuck alarmed within grace": not night["faults"]["stuck_unalarmed"],
        "every alarm of the night resolved after recovery": not unresolved,
        # Throttles (--graph-throttle): each throttled post landed after the announced regain
        # time with nothing sent to its channel before, and the pause was on its owner's
        # History and the operator's console while it lasted.
        "a throttle met": bool(throttles),
        "every throttled post landed": all(t["landed"] for t in throttles),
        "no request during a throttle's pause": all(t["waited_for_regain"] for t in throttles),
        "History and console showed each pause": all(
            t["history_showed_pause"] and t["console_showed_pause"] for t in throttles
        ),
        # The watchdog clock: job_down, research_starved overdue, source_failing and
        # source_failing_for_account each opened within its (scaled) grace and resolved.
        "watchdog clock: every provoked alarm opened in its grace and resolved": bool(clock)
        and all(row["ok"] for row in clock),
    }
    report = {
        "accounts": night["accounts"],
        "approved": night["approved"],
        "landed": night["landed"],
        "duplicates": night["duplicates"],
        "approved_not_landed": night["approved_not_landed"],
        "failed": night["failed"],
        "elapsed_s": night["elapsed_s"],
        "stages": night["stages"],
        "faults": faults,
        "bench_faults": {
            k: v for k, v in night["faults"].items() if k not in ("alarms", "throttles", "watchdog_clock")
        },
        "throttles": throttles,
        "watchdog_clock": clock,
        "alarms": alarms,
        "checks": checks,
        "ok": all(checks.values()),
    }
    if not args.json:
        print(
            f"night: {night['elapsed_s']} s, {night['approved']} approved, {night['landed']} landed, "
            f"{night['duplicates']} duplicates, {night['approved_not_landed']} approved but not landed, "
            f"{night['failed']} failed"
        )
        hidden = ("alarms", "night_started_epoch", "throttles", "watchdog_clock")
        print(f"bench: { {k: v for k, v in night['faults'].items() if k not in hidden} }")
        for t in throttles:
            print(
                f"throttle #{t['code']} on {t['request']} (publication {t['publication']}, channel {t['channel']}): "
                f"channel quiet {t['channel_quiet_s']} s, now {t['status']}, History showed it: "
                f"{t['history_showed_pause']}, console: {t['console_showed_pause']}"
            )
        for row in clock:
            print(
                f"watchdog clock {row['kind']} account {row['account_id']} {row['subject']!r}: due {row['due_s']} s, "
                f"opened {row['opened_s']} s, resolved {row['resolved_s']} s {'ok' if row['ok'] else 'FAIL'}"
            )
        for alarm in alarms:
            resolved = "never" if alarm["resolved_s"] is None else f"{alarm['resolved_s']} s"
            print(
                f"alarm {alarm['kind']} account {alarm['account_id']} {alarm['subject']!r}: "
                f"opened {alarm['opened_s']} s, resolved {resolved}"
            )
        for name, ok in checks.items():
            print(f"{'ok  ' if ok else 'FAIL'} {name}")
    print(json.dumps(report, sort_keys=True))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
