"""Deterministic generator of realistic agent contexts, for refgraph's benchmarks.

``generate(words, seed)`` returns a Markdown-ish context of exactly ``words`` whitespace-separated
words, the way an agent holds it: a system prompt (headings, constraint and tool bullets), chat
sessions (``user:``, ``assistant:`` and ``tool[call_17]:`` turns with JSON and log output),
scratchpad notes, incident timelines with log lines, patches in code fences, file paths and URLs.
The prose is about SRE, coding and data pipelines and carries what refgraph extracts: quantities
("the timeout is 30 seconds", "at most 3 retries", "5 req/s", "1.5 GB"), identifiers
(``MAX_RETRIES=3``, ``retry_budget``, ``os.path.join``), constraints, negations, conditionals,
causal connectives and deictic references ("the above constraint", "that retry budget").

Every block comes from a template with random slot fills (a seeded :class:`random.Random`), so
blocks are mostly distinct; a few tool outputs repeat verbatim, as they do in real contexts.

``rewrite(text, fraction, seed)`` changes about ``fraction`` of the blocks (edits a sentence or a
number, deletes a few blocks, inserts a few new ones): the input of the incremental benchmark.

All text here is self-written. Run ``python benchmarks/gen_context.py --words 2000`` to print one.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterator
from random import Random

from refgraph import BlockKind, split_blocks

# --------------------------------------------------------------------------------------------
# Vocabulary
# --------------------------------------------------------------------------------------------

SERVICES = ("checkout-api", "billing-worker", "ingest-service", "auth-gateway", "search-indexer",
            "payments-api", "notification-relay", "ledger-sync", "feature-store",
            "report-builder", "media-transcoder", "session-cache", "order-router",
            "inventory-sync", "email-dispatcher", "geo-lookup")
REGIONS = ("eu-west-1", "us-east-2", "ap-south-1", "us-west-2", "eu-central-1")
ENVS = ("staging", "production", "canary", "dev", "the load-test cluster")
PEOPLE = ("Priya", "Tomasz", "Ana", "Kwame", "Lena", "Hiro", "Marisol", "Dmitri", "Aisha", "Jonas")
SYSTEMS = ("Postgres", "Kafka", "Redis", "Airflow", "Grafana", "PagerDuty", "Kubernetes",
           "Terraform", "BigQuery", "Spark", "Envoy", "ClickHouse")
DATASETS = ("orders", "events_raw", "sessions_daily", "invoices", "clickstream", "user_profiles",
            "payments_ledger", "shipments", "audit_log", "feature_snapshots")
DAGS = ("nightly_export", "hourly_rollup", "ledger_reconcile", "events_compaction",
        "profile_backfill", "invoice_sync", "feature_refresh", "gdpr_purge")
NOUNS = ("retry", "request", "batch", "cache", "queue", "worker", "shard", "lease", "upload",
         "token", "rate", "pool", "flush", "backoff", "heartbeat", "snapshot", "checkpoint",
         "compaction", "session", "partition", "connection", "export")
QUALS = ("budget", "limit", "size", "timeout", "count", "interval", "ttl", "depth", "window",
         "threshold", "delay", "quota")
VERBS = ("fetch", "load", "flush", "compute", "validate", "deploy", "rollback", "drain", "retry",
         "parse", "sync", "rotate", "compact", "publish", "reindex", "migrate", "purge", "render")
OBJECTS = ("orders", "batch", "index", "snapshot", "manifest", "events", "metrics", "schema",
           "shard", "keys", "invoices", "partitions", "config", "cache", "report")
MODULES = ("storage", "pipeline", "scheduler", "metrics", "db", "queue_client", "utils", "deploy",
           "retry", "ingest", "billing", "auth")
STDLIB = ("os.path.join", "json.loads", "json.dumps", "time.sleep", "subprocess.run",
          "shutil.rmtree", "pathlib.Path.glob", "requests.get", "requests.post",
          "asyncio.gather", "logging.getLogger", "datetime.timedelta", "hashlib.sha256")
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")
LEVELS = ("INFO", "INFO", "INFO", "WARN", "ERROR", "DEBUG")
FILE_EXT = ("py", "py", "yaml", "sql", "sh", "toml", "json")

# --------------------------------------------------------------------------------------------
# Slot fillers: each takes the generator's Random and returns a string
# --------------------------------------------------------------------------------------------

Filler = Callable[[Random], str]


def _num(rng: Random, lo: int, hi: int) -> str:
    n = rng.randint(lo, hi)
    return f"{n:,}"


def _snake(rng: Random) -> str:
    return f"{rng.choice(NOUNS)}_{rng.choice(QUALS)}"


def _plural(word: str) -> str:
    if word.endswith(("ch", "sh", "s")):
        return word + "es"
    return word + "s"


def _const(rng: Random) -> str:
    form = rng.random()
    if form < 0.35:
        return f"MAX_{_plural(rng.choice(NOUNS)).upper()}"
    if form < 0.7:
        return f"{rng.choice(NOUNS).upper()}_{rng.choice(QUALS).upper()}"
    return f"{rng.choice(NOUNS).upper()}_{rng.choice(('TIMEOUT', 'DELAY', 'TTL'))}_" + \
        rng.choice(("MS", "SECONDS", "S"))


def _func(rng: Random) -> str:
    return f"{rng.choice(VERBS)}_{rng.choice(OBJECTS)}"


def _dotted(rng: Random) -> str:
    if rng.random() < 0.4:
        return rng.choice(STDLIB)
    return f"{rng.choice(MODULES)}.{_func(rng)}"


def _path(rng: Random) -> str:
    form = rng.random()
    svc = rng.choice(SERVICES)
    if form < 0.3:
        return f"/var/log/{svc}/{rng.choice(('app', 'error', 'access', 'worker'))}.log"
    if form < 0.6:
        pkg = svc.replace("-", "_")
        return f"src/{pkg}/{rng.choice(MODULES)}.{rng.choice(FILE_EXT)}"
    if form < 0.8:
        return f"config/{svc}/{rng.choice(ENVS[:4])}.yaml"
    return f"./scripts/{rng.choice(VERBS)}_{rng.choice(OBJECTS)}.sh"


def _url(rng: Random) -> str:
    form = rng.random()
    svc = rng.choice(SERVICES)
    if form < 0.3:
        return f"https://grafana.internal.example/d/{rng.randrange(16**6):06x}/{svc}"
    if form < 0.6:
        return f"https://git.example.com/platform/{svc}/pull/{rng.randint(100, 4999)}"
    if form < 0.8:
        return f"https://runbooks.example.org/{svc}/{rng.choice(('latency', 'errors', 'disk'))}"
    return f"https://ci.example.com/jobs/{rng.choice(DAGS)}/{rng.randint(1000, 99999)}"


def _bucket(rng: Random) -> str:
    return f"s3://example-{rng.choice(('lake', 'exports', 'backups'))}/{rng.choice(DATASETS)}/" \
        f"dt=2024-0{rng.randint(1, 9)}-{rng.randint(10, 28)}/"


def _time(rng: Random) -> str:
    unit = rng.choice(("seconds", "seconds", "s", "minutes", "ms", "hours", "min"))
    if unit == "ms":
        return f"{rng.choice((50, 100, 150, 200, 250, 400, 500, 800, 1200))} ms"
    if unit in ("minutes", "min"):
        return f"{rng.choice((1, 2, 5, 10, 15, 30, 45))} {unit}"
    if unit == "hours":
        return f"{rng.choice((1, 2, 4, 6, 12, 24))} hours"
    return f"{rng.choice((3, 5, 10, 15, 20, 30, 45, 60, 90, 120))} {unit}"


def _size(rng: Random) -> str:
    unit = rng.choice(("GB", "GB", "MB", "MiB", "GiB", "TB", "KB"))
    if rng.random() < 0.3:
        return f"{rng.randint(1, 9)}.{rng.randint(1, 9)} {unit}"
    return f"{rng.choice((2, 4, 8, 16, 32, 64, 128, 256, 512, 750))} {unit}"


def _rate(rng: Random) -> str:
    n = rng.choice((5, 10, 20, 50, 100, 200, 500, 1200, 3000))
    return rng.choice((f"{n} req/s", f"{n:,} requests per second", f"{n} msg/s",
                       f"{n:,} events per minute", f"{n} QPS"))


def _pct(rng: Random) -> str:
    return rng.choice((f"{rng.randint(55, 99)}%", f"{rng.randint(1, 9)}.{rng.randint(0, 9)}%",
                       "0.5%"))


def _attempts(rng: Random) -> str:
    n = rng.randint(2, 6)
    return f"{rng.randint(1, n)}/{n}"


def _short_time(rng: Random) -> str:
    return rng.choice((f"{rng.choice((100, 200, 250, 500))} ms", f"{rng.randint(1, 5)} seconds",
                       f"{rng.randint(1, 10)} s"))


def _count(rng: Random) -> str:
    noun = rng.choice(("messages", "rows", "files", "events", "records", "jobs", "requests"))
    return f"{rng.choice((120, 800, 4500, 12000, 35000, 250000, 1200000)):,} {noun}"


def _money(rng: Random) -> str:
    return rng.choice((f"${rng.randint(5, 900)} per day", f"€{rng.randint(100, 9000):,} per month",
                       f"${rng.randint(1, 9)}.{rng.randint(10, 99)} per GB"))


def _clock(rng: Random) -> str:
    return f"{rng.randint(0, 23):02d}:{rng.choice((0, 5, 10, 15, 20, 30, 40, 45, 50)):02d} UTC"


def _incident(rng: Random) -> str:
    return f"INC-{rng.randint(1000, 9999)}"


FILLERS: dict[str, Filler] = {
    "svc": lambda r: r.choice(SERVICES),
    "svc2": lambda r: r.choice(SERVICES),
    "region": lambda r: r.choice(REGIONS),
    "env": lambda r: r.choice(ENVS),
    "person": lambda r: r.choice(PEOPLE),
    "system": lambda r: r.choice(SYSTEMS),
    "dataset": lambda r: r.choice(DATASETS),
    "dag": lambda r: r.choice(DAGS),
    "noun": lambda r: r.choice(NOUNS),
    "qual": lambda r: r.choice(QUALS),
    "weekday": lambda r: r.choice(WEEKDAYS),
    "snake": _snake,
    "snake2": _snake,
    "CONST": _const,
    "CONST2": _const,
    "func": _func,
    "func2": _func,
    "dotted": _dotted,
    "path": _path,
    "path2": _path,
    "url": _url,
    "bucket": _bucket,
    "time": _time,
    "time2": _time,
    "size": _size,
    "rate": _rate,
    "pct": _pct,
    "pct_hi": lambda r: f"{r.randint(80, 99)}%",
    "pct_lo": lambda r: f"{r.randint(1, 4)}.{r.randint(0, 9)}%",
    "slo": lambda r: r.choice(("99.9%", "99.95%", "99.5%", "99%")),
    "attempts": _attempts,
    "short": _short_time,
    "hex": lambda r: f"{r.randrange(16**12):012x}",
    "msgs": lambda r: f"{r.choice((300, 1500, 8000, 42000, 180000)):,} messages",
    "count": _count,
    "money": _money,
    "clock": _clock,
    "incident": _incident,
    "n": lambda r: str(r.randint(2, 12)),
    "n2": lambda r: str(r.randint(2, 12)),
    "small": lambda r: str(r.randint(1, 5)),
    "big": lambda r: _num(r, 1_000, 90_000),
    "pr": lambda r: str(r.randint(100, 4999)),
}

_SLOT = re.compile(r"\{(\w+)\}")


def fill(template: str, rng: Random) -> str:
    """Fill every ``{slot}`` of ``template`` with a fresh random value."""
    return _SLOT.sub(lambda m: FILLERS[m.group(1)](rng), template)


# --------------------------------------------------------------------------------------------
# Sentence templates (one line each: sentences never start a Markdown construct)
# --------------------------------------------------------------------------------------------

FACTS = (
    "The timeout for {svc} is {time}.",
    "The request timeout is {time} and the connect timeout is {short}.",
    "{svc} retries at most {small} times before it gives up and returns a 503.",
    "The upstream limit is {rate} per client, with a burst allowance of {n} requests.",
    "`{CONST}` is currently {n}, and `{snake}` defaults to {time}.",
    "The `{dag}` DAG reads {size} of Parquet from `{bucket}` every {time}.",
    "Each {svc} pod gets {size} of memory and {small} CPU cores.",
    "The {dataset} table grows by about {count} per day.",
    "Consumer lag on partition {n} of the `{dataset}` topic is {msgs}.",
    "The p99 latency of {svc} in {region} was {time} during the last hour.",
    "Disk usage on the {system} primary is at {pct_hi}, up from {pct} last week.",
    "The error rate for `{func}` has stayed below {pct_lo} since the {clock} deploy.",
    "{system} keeps snapshots for {time}, and each one takes roughly {size}.",
    "The cache TTL is {time}, so stale entries can survive a single deploy.",
    "Our egress bill for {svc} is about {money}.",
    "The checksum step in `{dotted}` takes {short} per {size} file.",
    "We run {n} replicas of {svc} in {region} and {n2} in the other regions.",
    "The batch size is {big} rows, which keeps each write under {size}.",
    "The job processes {rate} at peak and about a third of that overnight.",
    "`{dotted}` returns None when the key is missing, and callers check for it.",
    "Connection pool size is {n} per worker, with {n2} workers per host.",
    "The retry backoff starts at {time} and doubles up to {time2}.",
    "The `{func}` step moved {count} from `{bucket}` in {time}.",
    "Heartbeats arrive every {time}; a worker is declared dead after {small} missed ones.",
    "The dashboard for this is at {url}.",
    "The raw logs live in `{path}` and rotate every {time}.",
    "{person} owns `{path}` and reviewed the last change to it in {url}.",
    "The config for {svc} sits in `{path}`, next to `{path2}`.",
    "The {system} cluster in {region} has {n} nodes with {size} of disk each.",
    "`{CONST}={n}` is set in the deployment manifest for {env}.",
    "The SLO for {svc} is {slo} availability over a rolling 28-day window.",
    "Build {pr} of the pipeline took {time} end to end.",
    "{person} measured {rate} on the new instance type, about {pct} more than before.",
    "The webhook queue holds at most {count} before it starts dropping.",
)

CONSTRAINTS = (
    "Do not call `{func}` before the integration tests pass.",
    "Never run `{func}` against {env} without a second reviewer.",
    "You must keep the {noun} budget under {small} retries per request.",
    "Do not raise `{CONST}` above {n} while the migration is running.",
    "Only deploy {svc} to production when the error rate stays below {pct_lo} for {time}.",
    "Make sure `{CONST}` matches the value in `{path}`.",
    "Avoid running the backfill and the compaction at the same time.",
    "Deleting the {dataset} index is forbidden unless the backup has completed.",
    "Always ask the user before deleting anything under `{path}`.",
    "Keep at most {n} concurrent jobs per worker.",
    "Do not write to `{bucket}` from {env}.",
    "The agent must not push directly to main; open a pull request instead.",
    "You should not restart {system} during business hours.",
    "Requests to {svc} must stay under {rate}.",
    "Never print secrets from `{path}` into the chat.",
    "Use `{dotted}` for paths, not string concatenation.",
    "Do not exceed {money} on the {region} cluster.",
    "Any change to `{snake}` needs approval from {person}.",
    "Wait at least {time} between two deploys of {svc}.",
    "Under no circumstances should `{func}` run with `--force` in production.",
)

NEGATIONS = (
    "The cache is not warmed after a deploy, so the first requests are slow.",
    "We did not see any errors in `{path}` after {clock}.",
    "No alerts fired for {svc} during the {incident} window.",
    "`{func}` does not retry on a 4xx response.",
    "{person} hasn't confirmed whether the {dataset} backfill finished.",
    "The new index isn't used by the `{dag}` query yet.",
    "None of the {n} replicas in {region} reported a restart.",
    "The fix for `{snake}` was never merged into the release branch.",
    "It is not safe to lower `{CONST}` below {small} with the current traffic.",
    "The {system} upgrade did not change the p99 latency.",
)

CONDITIONALS = (
    "If the queue depth exceeds {count}, scale {svc} to {n} workers.",
    "If `{func}` raises a timeout, do not retry more than {small} times.",
    "Unless the user approves it, leave `{CONST}` at {n}.",
    "When disk usage passes {pct_hi}, page the on-call engineer.",
    "If the export is larger than {size}, split it into {n} parts.",
    "Roll back {svc} if the p99 latency stays above {time} for {time2}.",
    "If {system} is unavailable, `{dotted}` falls back to the local cache.",
    "When the rate limit of {rate} is reached, the client must back off for {time}.",
    "If the checksum does not match, rerun `{func}` for that partition only.",
    "Only if the dry run is clean should you apply the change to {env}.",
)

CAUSALS = (
    "The nightly export failed because the disk on the {system} host reached {pct_hi} usage.",
    "The p99 latency went up to {time}, so we rolled back the {svc} release.",
    "Since the cache TTL is {time}, the stale price was served for a while.",
    "The workers ran out of memory due to the {size} batch, and therefore the job restarted.",
    "Because the upstream limit is {rate}, the client throttles itself.",
    "The `{dag}` run was skipped, which means the {dataset} table is one day behind.",
    "`{CONST}` was set to {n}, so each request could wait up to {time}.",
    "The index rebuild locked the table; as a result, `{func}` timed out {n} times.",
    "Hence the rollout should wait until {weekday}.",
    "Therefore we should keep `{snake}` at {n} until the load test is done.",
    "The deploy was blocked since the tests on build {pr} were still running.",
    "The alert fired because consumer lag crossed {msgs}.",
)

DEICTICS = (
    "As noted above, the {noun} budget applies to every tool call.",
    "That retry budget was probably set too low for {region}.",
    "The above constraint also covers `{func}`.",
    "This limit is likely enough for the {env} load test.",
    "The previous step left {n} orphaned files in `{path}`.",
    "As mentioned earlier, {person} wants a dry run first.",
    "That timeout should stay as it is until {weekday}.",
    "The same rule applies to `{func2}`.",
    "These numbers are approximately what we saw in {region} last week.",
    "Per the above, nothing runs in {env} until the tests pass.",
    "This change might break `{dotted}` for older callers.",
    "Those logs suggest the {noun} pool is exhausted, but it may be a red herring.",
    "The aforementioned quota resets every {time}.",
    "It probably comes from the {system} failover at {clock}.",
)

HEDGES = (
    "The leak is probably in `{dotted}`, but I have not confirmed it.",
    "Latency might improve if we raise `{snake}` to {n}.",
    "It is likely that about {pct} of the failures come from one tenant.",
    "The backfill should take roughly {time} for {count}.",
    "Maybe the {system} client is reusing a closed connection.",
)

PROSE = (FACTS, FACTS, CONSTRAINTS, NEGATIONS, CONDITIONALS, CAUSALS, CAUSALS, DEICTICS,
         DEICTICS, HEDGES)

USER_ASKS = (
    "Can you find out why {svc} is timing out in {region}?",
    "Please bump `{CONST}` to {n} and rerun the tests.",
    "The nightly `{dag}` run failed again; check the logs under `{path}`.",
    "How much headroom do we have before the {rate} limit?",
    "Can you write a small script that lists partitions older than {time}?",
    "Why did the {dataset} table stop updating after {clock}?",
    "Is it safe to lower `{snake}` to {small} for {svc}?",
    "Summarise what happened during {incident} for the postmortem.",
    "Check whether `{func}` still handles a {size} payload.",
    "Review the patch in {url} and tell me if it respects the constraints.",
    "Please compare the error rate before and after the {clock} deploy.",
    "Can you estimate the cost of keeping {size} of snapshots in {region}?",
)

USER_EXTRAS = (
    "Don't touch {env} until I confirm.",
    "Keep it under {time} if you can.",
    "{person} is on call, so ping them if anything looks off.",
    "We need this before {weekday}.",
    "Remember the above constraint about deploys.",
    "Do not restart anything.",
    "",
    "",
)

ASSISTANT_OPENERS = (
    "I'll start with the logs and then check the config.",
    "Let me look at the metrics first.",
    "Here is what I found.",
    "I checked `{path}` and the dashboard.",
    "I ran `{func}` with `--dry-run` first, as required.",
    "Short answer: not yet.",
    "I compared the two deploys.",
    "Understood, I will not touch {env}.",
)

PLAN_STEPS = (
    "read `{path}` for errors after {clock}",
    "query the `{dataset}` table for rows newer than {time}",
    "call `{func}` with `--dry-run`",
    "compare `{CONST}` in {env} with the value in `{path}`",
    "check the {system} dashboard at {url}",
    "measure p99 latency over the last {time}",
    "confirm the retry budget of {small} attempts is respected",
    "ask {person} before changing anything in production",
    "rerun the failing test with `-k {func}`",
)

HEADINGS_NOTES = (
    "## Notes",
    "## Scratchpad",
    "## Memory: {svc}",
    "## Findings so far",
    "## Data pipeline: {dag}",
    "## Runbook excerpt: {svc}",
    "### Open questions",
    "## Capacity plan for {region}",
)

# --------------------------------------------------------------------------------------------
# Blocks
# --------------------------------------------------------------------------------------------


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def sentence(rng: Random, pools: tuple[tuple[str, ...], ...] = PROSE) -> str:
    return fill(rng.choice(rng.choice(pools)), rng)


def paragraph(rng: Random, lo: int = 2, hi: int = 6) -> str:
    sents = [sentence(rng) for _ in range(rng.randint(lo, hi))]
    return " ".join(sents)


def bullet(rng: Random, marker: str = "-") -> str:
    form = rng.random()
    if form < 0.25:
        body = f"`{_const(rng)}={rng.randint(1, 60)}`: " + sentence(rng, (FACTS, CONDITIONALS))
    elif form < 0.6:
        body = sentence(rng, (CONSTRAINTS, CONSTRAINTS, CONDITIONALS, NEGATIONS))
    else:
        body = sentence(rng)
    if rng.random() < 0.2:
        body += " " + sentence(rng, (DEICTICS, CAUSALS))
    return f"{marker} {body}"


def tool_bullet(rng: Random) -> str:
    name = _func(rng)
    arg = rng.choice(("path", "since", "limit", "query", "service", "partition", "dry_run"))
    desc = rng.choice((
        "returns JSON with `status` and `items`; at most {n} calls per minute.",
        "reads files under `{path}` and never writes.",
        "runs a shell command with a {time} timeout.",
        "queries {system}; results are capped at {count}.",
        "opens a pull request; do not call it before the tests pass.",
        "fetches a URL such as {url}.",
    ))
    return f"- `{name}({arg})`: " + fill(desc, rng)


def code_block(rng: Random) -> str:
    lang = rng.choice(("python", "python", "yaml", "bash", "sql"))
    if lang == "python":
        const, const2, func = _const(rng), _const(rng), _func(rng)
        timeout = rng.choice((2.5, 5.0, 10.0, 30.0))
        body = (
            "import os\nimport time\n\n"
            f"{const} = {rng.randint(2, 12)}\n{const2} = {rng.randint(1, 5)}\n\n\n"
            f"def {func}(name: str, timeout: float = {timeout}) -> dict:\n"
            f"    path = os.path.join(\"/var/lib/{rng.choice(SERVICES)}\", name)\n"
            f"    for attempt in range({const}):\n"
            "        try:\n"
            f"            return {_dotted(rng)}(path, timeout=timeout)\n"
            "        except TimeoutError:\n"
            f"            time.sleep({const2} * 2 ** attempt)\n"
            f"    raise RuntimeError(f\"gave up on {{path}} after {{{const}}} attempts\")")
    elif lang == "yaml":
        body = fill(
            "service: {svc}\nregion: {region}\nreplicas: {n}\nresources:\n"
            f"  memory: {rng.choice((256, 512, 1024, 2048))}Mi\n"
            f"  cpu: \"{rng.choice((250, 500, 1000))}m\"\n"
            "retry:\n  max_attempts: {small}\n"
            f"  backoff_ms: {rng.choice((100, 200, 500))}\n"
            "rate_limit:\n  requests_per_second: {n}\n", rng).rstrip()
    elif lang == "bash":
        body = fill(
            "kubectl -n {svc} rollout status deploy/{svc} --timeout={n}0s\n"
            "./scripts/{func}.sh --dry-run --max-workers={small}\n"
            "grep -c ERROR {path} | tee /tmp/{snake}.txt", rng)
    else:
        body = fill(
            "SELECT date_trunc('hour', created_at) AS hour, count(*) AS failures\n"
            "FROM {dataset}\n"
            "WHERE status = 'failed' AND created_at > now() - interval '{n} hours'\n"
            "GROUP BY 1\nORDER BY 1 DESC\nLIMIT {n2}0;", rng)
    return f"```{lang}\n{body}\n```"


def json_line(rng: Random) -> str:
    form = rng.random()
    svc = rng.choice(SERVICES)
    if form < 0.4:
        return (f'{{"service": "{svc}", "status": "{rng.choice(("ok", "degraded", "down"))}", '
                f'"p99_ms": {rng.randint(40, 2000)}, "error_rate": {rng.randint(1, 400) / 10000}, '
                f'"replicas": {{"ready": {rng.randint(1, 6)}, "desired": {rng.randint(3, 6)}}}}}')
    if form < 0.7:
        return (f'{{"dag": "{rng.choice(DAGS)}", "run_id": "scheduled__2024-0{rng.randint(1, 9)}-'
                f'{rng.randint(10, 28)}T0{rng.randint(0, 9)}:00:00", "state": '
                f'"{rng.choice(("success", "failed", "running", "up_for_retry"))}", '
                f'"try_number": {rng.randint(1, 4)}, "duration_s": {rng.randint(30, 9000)}}}')
    return (f'{{"path": "{_path(rng)}", "size_bytes": {rng.randint(1000, 9_000_000_000)}, '
            f'"modified": "2024-0{rng.randint(1, 9)}-{rng.randint(10, 28)}", "owner": '
            f'"{rng.choice(PEOPLE).lower()}"}}')


def json_pretty(rng: Random) -> str:
    n = rng.randint(2, 4)
    items = ",\n".join(
        f'    {{"id": "{rng.randrange(16**8):08x}", "{rng.choice(QUALS)}": {rng.randint(1, 900)}, '
        f'"ok": {rng.choice(("true", "false"))}}}' for _ in range(n))
    return (f'{{\n  "status": "{rng.choice(("ok", "partial", "error"))}",\n'
            f'  "elapsed_ms": {rng.randint(5, 5000)},\n  "items": [\n{items}\n  ]\n}}')


LOG_MESSAGES = (
    "upstream timeout after {n}s (attempt {attempts})",
    "processed {count} in {n}.{small} s",
    "connection pool exhausted: {n}/{n} in use",
    "request_id={hex} status=503 latency_ms={big}",
    "disk usage at {pct_hi} on /var/lib/{svc}",
    "retry budget exhausted for {func}",
    "checkpoint written to {bucket}",
    "consumer lag {msgs} on partition {n}",
    "config reloaded from {path}",
    "rate limited by {svc2}: {rate}",
)


def log_line(rng: Random) -> str:
    ts = (f"2024-0{rng.randint(1, 9)}-{rng.randint(10, 28)}T{rng.randint(0, 23):02d}:"
          f"{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z")
    msg = fill(rng.choice(LOG_MESSAGES), rng)
    return f"{ts} {rng.choice(LEVELS)} {rng.choice(SERVICES)} {msg}"


# --------------------------------------------------------------------------------------------
# Sections
# --------------------------------------------------------------------------------------------


class _State:
    """What must persist across sections: the tool-call counter and outputs worth repeating."""

    def __init__(self) -> None:
        self.call = 11
        self.tool_turns: list[str] = []
        self.json_blocks: list[str] = []


def system_prompt(rng: Random, st: _State) -> Iterator[str]:
    yield fill(rng.choice(("# Agent context: {svc}", "# Session memory for {svc}",
                           "# On-call assistant ({region})")), rng)
    yield "## System"
    yield fill("You are an operations assistant for the {svc} team. You can read logs, query "
               "metrics and open pull requests, but you act only through the tools listed below.",
               rng) + " " + paragraph(rng, 1, 3)
    yield "## Constraints"
    numbered = rng.random() < 0.4
    for i in range(rng.randint(4, 8)):
        yield bullet(rng, f"{i + 1}." if numbered else "-")
    yield "## Tools"
    for _ in range(rng.randint(3, 6)):
        yield tool_bullet(rng)


def tool_turn(rng: Random, st: _State) -> str:
    if st.tool_turns and rng.random() < 0.06:
        return rng.choice(st.tool_turns)  # the same result pasted twice
    st.call += 1
    head = f"tool[call_{st.call}]:"
    form = rng.random()
    if form < 0.35:
        body = f"{head} {json_line(rng)}"
    elif form < 0.55:
        body = f"{head}\n{json_pretty(rng)}"
    elif form < 0.85:
        body = head + "\n" + "\n".join(log_line(rng) for _ in range(rng.randint(2, 5)))
    else:
        body = f"{head} " + fill(rng.choice((
            "exit code {small}; wrote {count} to `{path}`.",
            "OK: {n} files changed, tests passed in {time}.",
            "error: permission denied for `{path}`.",
            "no rows returned for `{dataset}` since {clock}.")), rng)
    st.tool_turns.append(body)
    return body


def assistant_turn(rng: Random) -> str:
    parts = [fill(rng.choice(ASSISTANT_OPENERS), rng)]
    parts.append(paragraph(rng, 1, 4))
    text = "assistant: " + " ".join(parts)
    if rng.random() < 0.35:
        steps = [f"{i + 1}. {_cap(fill(rng.choice(PLAN_STEPS), rng))}."
                 for i in range(rng.randint(2, 4))]
        text += "\n\nPlan:\n" + "\n".join(steps)
    if rng.random() < 0.2:
        text += "\n\n" + paragraph(rng, 1, 3)
    return text


def user_turn(rng: Random) -> str:
    extra = fill(rng.choice(USER_EXTRAS), rng)
    ask = fill(rng.choice(USER_ASKS), rng)
    return f"user: {ask} {extra}".rstrip()


def conversation(rng: Random, st: _State) -> Iterator[str]:
    yield fill(rng.choice(("## Conversation", "## Session {n}", "## Chat with {person}",
                           "## Task: {incident} follow-up")), rng)
    for _ in range(rng.randint(1, 3)):
        yield user_turn(rng)
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.6:
                yield f"assistant: I'll call `{_func(rng)}`" + fill(
                    rng.choice((" with `--since={n}h`.", " on `{path}`.", " for {svc}.",
                                " with a {time} timeout.")), rng)
                yield tool_turn(rng, st)
            yield assistant_turn(rng)
        if rng.random() < 0.2:
            # A patch: the fence ends the turn, the rest of the answer is a paragraph.
            yield "assistant: Here is the change I propose."
            yield code_block(rng)
            yield paragraph(rng, 1, 3)


def notes(rng: Random, st: _State) -> Iterator[str]:
    yield fill(rng.choice(HEADINGS_NOTES), rng)
    for _ in range(rng.randint(2, 6)):
        r = rng.random()
        if r < 0.45:
            yield paragraph(rng)
        elif r < 0.65:
            for _ in range(rng.randint(2, 5)):
                yield bullet(rng)
        elif r < 0.75:
            if st.json_blocks and rng.random() < 0.25:
                yield rng.choice(st.json_blocks)  # a repeated status check
            else:
                block = json_line(rng)
                st.json_blocks.append(block)
                yield block
        elif r < 0.85:
            for _ in range(rng.randint(1, 3)):
                yield log_line(rng)
        else:
            yield code_block(rng)


def incident(rng: Random, st: _State) -> Iterator[str]:
    yield fill("## Incident {incident}: {svc} " + rng.choice(("latency", "errors", "outage",
                                                              "data delay")), rng)
    yield paragraph(rng, 2, 4)
    for _ in range(rng.randint(2, 5)):
        yield log_line(rng)
    yield " ".join((sentence(rng, (CAUSALS,)), sentence(rng, (DEICTICS,)),
                    sentence(rng, (CONDITIONALS, CONSTRAINTS))))
    if rng.random() < 0.5:
        yield "### Follow-ups"
        for _ in range(rng.randint(2, 4)):
            yield bullet(rng)


SECTIONS: tuple[tuple[Callable[[Random, _State], Iterator[str]], float], ...] = (
    (conversation, 0.5), (notes, 0.3), (incident, 0.2))


def _blocks(rng: Random) -> Iterator[str]:
    st = _State()
    yield from system_prompt(rng, st)
    kinds = [s for s, _ in SECTIONS]
    weights = [w for _, w in SECTIONS]
    while True:
        yield from rng.choices(kinds, weights)[0](rng, st)


def _filler(rng: Random, words: int) -> str:
    """A paragraph of exactly ``words`` words."""
    out: list[str] = []
    while len(out) < words:
        out.extend(sentence(rng).split())
    out = out[:words]
    last = out[-1].rstrip(".,;:!?")
    if last.count("`") % 2:
        last = last.replace("`", "")
    out[-1] = (last or "ok") + "."
    return " ".join(out)


def generate(words: int, seed: int = 0) -> str:
    """A context of exactly ``words`` whitespace-separated words, the same for the same seed."""
    if words <= 0:
        return ""
    rng = Random(seed)
    out: list[str] = []
    total = 0
    for block in _blocks(rng):
        n = len(block.split())
        if total + n > words:
            break
        out.append(block)
        total += n
        if total == words:
            break
    if total < words:
        out.append(_filler(rng, words - total))
    return "\n\n".join(out) + "\n"


# --------------------------------------------------------------------------------------------
# Rewrites
# --------------------------------------------------------------------------------------------

_SENTENCE = re.compile(r"[A-Z`][^\n]*?[.!?](?=\s|$)")
_TURN_HEAD = re.compile(r"^\s*\w+(?:\[[^\]\n]*\])?\s*:[ \t]*")
_BULLET_HEAD = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
_PROSE_KINDS = (BlockKind.PARAGRAPH, BlockKind.BULLET, BlockKind.TURN)
_DELETABLE = (BlockKind.PARAGRAPH, BlockKind.BULLET, BlockKind.LOG, BlockKind.JSON,
              BlockKind.TURN)


def _change_number(rng: Random, text: str) -> str | None:
    nums = list(_NUMBER.finditer(text))
    if not nums:
        return None
    m = rng.choice(nums)
    old = m.group()
    if "." in old:
        new = f"{float(old) * rng.choice((0.5, 2.0, 1.5)):g}"
    else:
        v = int(old)
        new = str(v + rng.choice((1, 2, 5, 10)) if v < 10 else v * rng.choice((2, 3)))
    return text[:m.start()] + new + text[m.end():]


def _edit(rng: Random, kind: BlockKind, body: str) -> str:
    """``body`` with one sentence replaced, a number changed or a sentence appended."""
    if kind in _PROSE_KINDS:
        head = _TURN_HEAD if kind is BlockKind.TURN else _BULLET_HEAD
        m = head.match(body)
        skip = m.end() if m else 0
        sents = [s for s in _SENTENCE.finditer(body) if s.start() >= skip]
        op = rng.random()
        if sents and op < 0.5:
            s = rng.choice(sents)
            return body[:s.start()] + sentence(rng) + body[s.end():]
        if sents and op < 0.8:
            s = rng.choice(sents)
            changed = _change_number(rng, s.group())
            if changed is not None:
                return body[:s.start()] + changed + body[s.end():]
        if sents:
            s = rng.choice(sents)
            return body[:s.end()] + " " + sentence(rng) + body[s.end():]
        return body + " " + sentence(rng)
    changed = _change_number(rng, body)
    if changed is not None:
        return changed
    if kind is BlockKind.CODE:
        last = body.rstrip().rfind("\n")
        return body[:last] + "\n# reviewed" + body[last:] if last > 0 else body + "\n"
    return body + " (revised)"


def _new_block(rng: Random, after: BlockKind) -> str:
    if after is BlockKind.TURN:
        return user_turn(rng) if rng.random() < 0.5 else assistant_turn(rng)
    if after is BlockKind.BULLET:
        return bullet(rng)
    if after is BlockKind.LOG:
        return log_line(rng)
    return paragraph(rng, 1, 4)


def rewrite(text: str, fraction: float, seed: int = 0) -> str:
    """``text`` with about ``fraction`` of its blocks changed: ~60% edited, ~20% deleted and
    ~20% new blocks inserted after others. Deterministic for the same arguments."""
    blocks = split_blocks(text)
    if not blocks or fraction <= 0:
        return text
    rng = Random(f"rewrite:{seed}")
    k = min(len(blocks), max(1, round(fraction * len(blocks))))
    ops: list[tuple[int, int, str]] = []  # (start, end, replacement) in the original text
    for i in sorted(rng.sample(range(len(blocks)), k)):
        b = blocks[i]
        op = rng.random()
        if op < 0.2 and b.kind in _DELETABLE and i + 1 < len(blocks):
            ops.append((b.start, blocks[i + 1].start, ""))  # the block and the gap after it
        elif op < 0.4:
            ops.append((b.end, b.end, "\n\n" + _new_block(rng, b.kind)))
        else:
            ops.append((b.start, b.end, _edit(rng, b.kind, b.text)))
    out = text
    for start, end, new in sorted(ops, key=lambda o: (o[0], o[1]), reverse=True):
        out = out[:start] + new + out[end:]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--words", type=int, default=2000, help="word count (default 2000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rewrite", type=float, default=0.0, metavar="FRACTION",
                    help="print rewrite(context, FRACTION) instead")
    ap.add_argument("--stats", action="store_true", help="print block statistics to stderr")
    args = ap.parse_args(argv)
    text = generate(args.words, args.seed)
    if args.rewrite:
        text = rewrite(text, args.rewrite, args.seed)
    sys.stdout.write(text)
    if args.stats:
        blocks = split_blocks(text)
        kinds: dict[str, int] = {}
        for b in blocks:
            kinds[b.kind.value] = kinds.get(b.kind.value, 0) + 1
        distinct = len({(b.kind, b.text) for b in blocks})
        print(f"{len(text.split())} words, {len(blocks)} blocks ({distinct} distinct): "
              + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
