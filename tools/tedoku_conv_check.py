"""Whether a convolutional network over the Tedoku sheet explains what the ``hard`` table
misses of its own one-turn backup (docs/ai.md, Tedoku, "Where the linear evaluation stands").

The sheets and targets are those of ``tools/tedoku_fit_check.py``: ``--games`` greedy solo
games by the committed table, the sheet after every turn and after four of the next-best
placements, each with the one-turn expectimax under the committed table as its target. The
network sees the sheet as four 9x9 planes (drawn cells; cells whose row, column or sector card
may still come), three 3x3 convolutions of ``--channels`` channels, pooled per unit (the 27
rows, columns and sectors) and over all cells, plus the 59 features and the turn; it is fitted
(Adam) to what the committed table leaves, on the first 80% of the games. Printed per epoch and
then per number of turns left, on the last 20%: the mean squared error of the committed table,
of a linear refit per turn and of the table plus the network (its best epoch).

Needs numpy and PyTorch, which the project does not: in a scratch venv, ``pip install
torch==2.13.0 numpy``. To be quick, run it on a mypyc-compiled scratch copy of core/
(``PYTHONPATH=/tmp/scratch:.``, see tools/fit_tedoku.py). About 11 minutes for the 700 games'
targets on 2 cores, then 5 seconds an epoch.
"""

from __future__ import annotations

import argparse
from multiprocessing import Pool

import numpy as np
import torch
from torch import nn

from core.ai.tedoku_bot import HARD_LINEAR, UNIT_MASKS, bucket, learned_value
from core.tedoku import CARD_MASK, ROW_MASKS, SECTOR_MASKS, TURNS, score_sheet
from tools.fit_tedoku import play
from tools.tedoku_fit_check import Row, sample_row

RANGES = ((1, 3), (3, 6), (6, 10), (10, 14), (14, 20))


def planes(sheet: int, unseen: list[str]) -> np.ndarray:
    """Drawn cells, then the cells of the rows, columns and sectors whose card may come."""
    p = np.zeros((4, 81), np.float32)
    for i in range(81):
        p[0, i] = (sheet >> i) & 1
    for card in unseen:
        m = CARD_MASK[card]
        ch = 1 if m in ROW_MASKS else 3 if m in SECTOR_MASKS else 2
        for i in range(81):
            if (m >> i) & 1:
                p[ch, i] = 1.0
    return p.reshape(4, 9, 9)


class Net(nn.Module):
    def __init__(self, channels: int, globals_: int) -> None:
        super().__init__()
        c = channels
        self.conv = nn.Sequential(
            nn.Conv2d(4, c, 3, padding=1), nn.ReLU(),
            nn.Conv2d(c, c, 3, padding=1), nn.ReLU(),
            nn.Conv2d(c, c, 3, padding=1), nn.ReLU(),
        )
        units = np.zeros((27, 81), np.float32)
        for u, m in enumerate(UNIT_MASKS):
            for i in range(81):
                if (m >> i) & 1:
                    units[u, i] = 1.0 / 9
        self.register_buffer("units", torch.tensor(units))
        self.unit = nn.Linear(27 * c, 64)
        self.flat = nn.Linear(81 * c, 64)
        self.glob = nn.Linear(globals_, 64)
        self.out = nn.Sequential(nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x: torch.Tensor, g: torch.Tensor) -> torch.Tensor:
        h = self.conv(x).flatten(2)
        u = torch.einsum("bci,ui->buc", h, self.units).flatten(1)
        return self.out(self.unit(u) + self.flat(h.flatten(1)) + self.glob(g)).squeeze(1)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=700)
    p.add_argument("--seed", type=int, default=5000)
    p.add_argument("--channels", type=int, default=32)
    p.add_argument("--epochs", type=int, default=25)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--jobs", type=int, default=2)
    a = p.parse_args()
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    with Pool(a.jobs) as pool:
        runs = pool.map(play, [(a.seed + g, HARD_LINEAR, 4) for g in range(a.games)],
                        chunksize=4)
        game = np.array([g for g, r in enumerate(runs) for _ in r])
        rows: list[Row] = pool.map(sample_row, [s for r in runs for s in r], chunksize=32)
    tl = np.array([r[0] for r in rows])
    f = np.array([r[3] for r in rows], np.float32)
    y = np.array([r[4] for r in rows], np.float32)
    # The committed table's estimate of the points still to come (the target's quantity).
    table = np.array([learned_value(r[1], r[3], HARD_LINEAR[bucket(r[0])]) - score_sheet(r[1])
                      for r in rows], np.float32)
    res = y - table
    train = game < int(a.games * 0.8)
    print(f"{len(rows)} sheets from {a.games} games (seeds {a.seed}+), {train.sum()} to fit\n")
    lin = np.zeros_like(y)
    for t in np.unique(tl):
        at = tl == t
        x1 = np.hstack([f[at], np.ones((at.sum(), 1), np.float32)])
        fit = at[at] & train[at]
        w = np.linalg.solve(x1[fit].T @ x1[fit] + 0.01 * np.eye(x1.shape[1]),
                            x1[fit].T @ y[at][fit])
        lin[at] = x1 @ w
    fs = (f - f[train].mean(0)) / (f[train].std(0) + 1e-6)
    g = np.hstack([fs, (tl / TURNS)[:, None], np.eye(TURNS, dtype=np.float32)[tl]])
    xt = torch.tensor(np.stack([planes(r[1], r[2]) for r in rows]))
    gt = torch.tensor(g.astype(np.float32))
    rt = torch.tensor(res)
    net = Net(a.channels, g.shape[1])
    opt = torch.optim.Adam(net.parameters(), lr=a.lr, weight_decay=1e-4)
    tr, va = np.where(train)[0], np.where(~train)[0]

    def predict(idx: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return torch.cat([net(xt[idx[i:i + 4096]], gt[idx[i:i + 4096]])
                              for i in range(0, len(idx), 4096)]).numpy()

    best, best_p = float("inf"), np.zeros(len(va), np.float32)
    print(f"committed table {np.mean(res[va] ** 2):.4f}, linear refit "
          f"{np.mean((y[va] - lin[va]) ** 2):.4f} (held-out mean squared error)")
    for epoch in range(a.epochs):
        rng.shuffle(tr)
        for i in range(0, len(tr), 256):
            b = tr[i:i + 256]
            loss = ((net(xt[b], gt[b]) - rt[b]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        fitted = float(np.mean((res[tr[:10000]] - predict(tr[:10000])) ** 2))
        pv = predict(va)
        mse = float(np.mean((res[va] - pv) ** 2))
        if mse < best:
            best, best_p = mse, pv
        print(f"epoch {epoch}: fitted games {fitted:.4f}, held-out {mse:.4f}", flush=True)
    print("\nturns left | sheets | target variance | table | linear refit | table + network")
    for lo, hi in RANGES:
        at = (tl[va] >= lo) & (tl[va] < hi)
        print(f"{lo}-{hi - 1} | {at.sum()} | {y[va][at].var():.2f} | "
              f"{np.mean(res[va][at] ** 2):.4f} | {np.mean((y[va][at] - lin[va][at]) ** 2):.4f} | "
              f"{np.mean((res[va][at] - best_p[at]) ** 2):.4f}")


if __name__ == "__main__":
    main()
