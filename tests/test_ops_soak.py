"""The soak harness (bench/soak.py) itself, in a short run with faults: real daphne
processes on the test database, socket players of all four kinds, spectators, HTTP pollers,
junk frames, one ``pg_terminate_backend`` of daphne's sessions and one ``kill -9`` of daphne
(restarted on its port; clients come back with ``last_seq``). Every move answered
``ok`` must be in the log afterwards. (The full runs and their figures:
docs/benchmarks-server.md, "Soak and fault run".)

Nothing here depends on the machine's speed: the run lasts 8 s and then goes on until both
faults were made, the players came back and moves were acknowledged after the kill (up to a
deadline only a hang reaches); the assertions are about what happened to what was done,
however much that was."""

from __future__ import annotations

from pathlib import Path

import pytest
from server_fixtures import daphne_env

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.timeout(900)]


def test_soak_with_kill_9_and_terminated_backends_loses_no_acknowledged_move(
    tmp_path: Path,
) -> None:
    from django.db import connection

    from bench import soak

    def enough(f: soak.Figures) -> bool:
        """Both faults made, and after the kill the players came back and moved again."""
        return (len(f.faults) == 2 and f.reconnects >= 1
                and f.acked > f.faults[-1].get("acked", f.acked))

    connection.close()  # nothing of this process on the database while backends are ended
    args = soak.parse_args([
        "--seconds", "8", "--max-seconds", "420", "--games", "8", "--pollers", "2",
        "--faults", "--fault-kinds", "terminate,kill9", "--fault-every", "2",
        "--fault-count", "2", "--grace", "5",
        "--junk", "0.05", "--think", "0.02,0.2",
        "--sample", "1", "--progress", "4", "--answer-timeout", "60",
        "--logdir", str(tmp_path),
    ])
    figures = soak.run(args, daphne_env(), until=enough)
    soak.report(figures)
    assert figures.until_met, (figures.faults, figures.reconnects, figures.acked)
    assert [r["kind"] for r in figures.faults] == ["terminate", "kill9"]
    assert all("recovered_s" in r for r in figures.faults), figures.faults
    assert figures.faults[0]["backends"] >= 1  # daphne had sessions, and they were ended
    assert figures.drops_in_faults >= 1  # the kill cut the sockets of that daphne ...
    assert figures.games_created >= 1
    assert figures.chains_checked == figures.games_created  # every game it made, checked
    assert figures.lost_acked == 0, figures.lost_detail
    assert figures.lost_seen == 0, figures.lost_detail
    assert figures.chains_bad == 0
    assert figures.order_errors == 0, figures.order_detail
