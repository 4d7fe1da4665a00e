"""Grouped bar charts with min-max error bars for test/bench/e2e (run.py's reports).

bar_chart(path, title, panels, groups, series, colors) draws one PNG: one panel per metric, stacked
vertically; in each panel one group of bars per workload (groups) and one bar per scheduler
(series), the bar at the median and a whisker from min to max. With matplotlib importable it is
used; without it (the benchmark machine has none) a small PNG writer in the standard library
(zlib + struct) draws the same chart with a 3x5 pixel font, so the plots never depend on pip.

panels: [(ylabel, {(group, series): (median, lo, hi)})]; a missing key draws no bar.
"""
import math
import struct
import zlib

# ------------------------------------------------------------------ tiny font (3x5, scaled)
_GLYPHS = {
    "0": "###|#.#|#.#|#.#|###", "1": ".#.|##.|.#.|.#.|###", "2": "###|..#|###|#..|###",
    "3": "###|..#|.##|..#|###", "4": "#.#|#.#|###|..#|..#", "5": "###|#..|###|..#|###",
    "6": "###|#..|###|#.#|###", "7": "###|..#|..#|.#.|.#.", "8": "###|#.#|###|#.#|###",
    "9": "###|#.#|###|..#|###", "A": ".#.|#.#|###|#.#|#.#", "B": "##.|#.#|##.|#.#|##.",
    "C": ".##|#..|#..|#..|.##", "D": "##.|#.#|#.#|#.#|##.", "E": "###|#..|##.|#..|###",
    "F": "###|#..|##.|#..|#..", "G": ".##|#..|#.#|#.#|.##", "H": "#.#|#.#|###|#.#|#.#",
    "I": "###|.#.|.#.|.#.|###", "J": "..#|..#|..#|#.#|.#.", "K": "#.#|#.#|##.|#.#|#.#",
    "L": "#..|#..|#..|#..|###", "M": "#.#|###|###|#.#|#.#", "N": "##.|#.#|#.#|#.#|#.#",
    "O": ".#.|#.#|#.#|#.#|.#.", "P": "##.|#.#|##.|#..|#..", "Q": ".#.|#.#|#.#|##.|.##",
    "R": "##.|#.#|##.|#.#|#.#", "S": ".##|#..|.#.|..#|##.", "T": "###|.#.|.#.|.#.|.#.",
    "U": "#.#|#.#|#.#|#.#|###", "V": "#.#|#.#|#.#|#.#|.#.", "W": "#.#|#.#|###|###|#.#",
    "X": "#.#|#.#|.#.|#.#|#.#", "Y": "#.#|#.#|.#.|.#.|.#.", "Z": "###|..#|.#.|#..|###",
    ".": "...|...|...|...|.#.", ",": "...|...|...|.#.|#..", "-": "...|...|###|...|...",
    "/": "..#|..#|.#.|#..|#..", "(": ".#.|#..|#..|#..|.#.", ")": ".#.|..#|..#|..#|.#.",
    ":": "...|.#.|...|.#.|...", "%": "#.#|..#|.#.|#..|#.#", "=": "...|###|...|###|...",
    "+": "...|.#.|###|.#.|...", "_": "...|...|...|...|###", " ": "...|...|...|...|...",
}


class Canvas:
    """An RGB image in memory; (0, 0) is the top left corner."""

    def __init__(self, w, h, bg=(255, 255, 255)):
        self.w, self.h = w, h
        self.px = bytearray(bytes(bg) * (w * h))

    def rect(self, x0, y0, x1, y1, color):
        x0, x1 = max(0, min(x0, x1)), min(self.w, max(x0, x1))
        y0, y1 = max(0, min(y0, y1)), min(self.h, max(y0, y1))
        if x0 >= x1:
            return
        row = bytes(color) * (x1 - x0)
        for y in range(y0, y1):
            i = (y * self.w + x0) * 3
            self.px[i:i + len(row)] = row

    def text(self, x, y, s, color=(0, 0, 0), scale=2):
        """Draws s with its top left at (x, y); returns the x after the last character."""
        for ch in s.upper().replace("\u2013", "-"):
            rows = _GLYPHS.get(ch, _GLYPHS[" "]).split("|")
            for r, bits in enumerate(rows):
                for c, b in enumerate(bits):
                    if b == "#":
                        self.rect(x + c * scale, y + r * scale, x + (c + 1) * scale,
                                  y + (r + 1) * scale, color)
            x += 4 * scale
        return x

    @staticmethod
    def text_width(s, scale=2):
        return 4 * scale * len(s)

    def save(self, path):
        stride = self.w * 3
        raw = b"".join(b"\0" + bytes(self.px[y * stride:(y + 1) * stride]) for y in range(self.h))

        def chunk(t, d):
            return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n"
                    + chunk(b"IHDR", struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def nice_ticks(top):
    """Tick values 0..>=top with a step of 1, 2 or 5 times a power of ten (about 5 ticks)."""
    if not top or top != top or top <= 0:
        top = 1.0
    raw = top / 5
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    ticks, v = [], 0.0
    while v < top + step * 0.999:
        ticks.append(round(v, 12))
        v += step
    return ticks


def _fmt(v):
    if v >= 100 or v == int(v):
        return f"{v:.0f}"
    return f"{v:.2g}" if v < 1 else f"{v:.1f}"


def _bar_chart_png(path, title, panels, groups, series, colors):
    pw, ph, left, top_pad = max(760, 140 + len(groups) * 44 * (len(series) + 1)), 230, 70, 50
    legend_h = 30
    c = Canvas(pw, top_pad + legend_h + len(panels) * (ph + 40) + 10)
    c.text(10, 10, title, scale=2)
    x = left
    for s, col in zip(series, colors):
        c.rect(x, top_pad - 10, x + 14, top_pad + 4, col)
        x = c.text(x + 20, top_pad - 8, s, scale=2) + 24
    gw = (pw - left - 20) / max(1, len(groups))
    bw = int(gw / (len(series) + 1))
    for k, (ylabel, data) in enumerate(panels):
        y0 = top_pad + legend_h + k * (ph + 40) + 20  # top of the plot area
        c.text(10, y0 - 18, ylabel, scale=2)
        vals = [v[2] for v in data.values() if v and v[2] == v[2]]
        ticks = nice_ticks(max(vals) if vals else 1)
        ymax = ticks[-1]

        def ypix(v, y0=y0, ymax=ymax):
            return int(y0 + ph - ph * (v / ymax if ymax else 0))
        for t in ticks:
            y = ypix(t)
            c.rect(left, y, pw - 20, y + 1, (225, 225, 225))
            lab = _fmt(t)
            c.text(left - 6 - Canvas.text_width(lab, 2), y - 4, lab, scale=2)
        c.rect(left, y0 + ph, pw - 20, y0 + ph + 1, (0, 0, 0))
        c.rect(left, y0, left + 1, y0 + ph, (0, 0, 0))
        for gi, g in enumerate(groups):
            gx = int(left + gi * gw + bw / 2)
            for si, (s, col) in enumerate(zip(series, colors)):
                v = data.get((g, s))
                if not v or v[0] != v[0]:
                    continue
                med, lo, hi = v
                x0 = gx + si * bw
                c.rect(x0, ypix(med), x0 + bw - 3, y0 + ph, col)
                if lo == lo and hi == hi and hi > lo:
                    xm = x0 + (bw - 3) // 2
                    c.rect(xm, ypix(hi), xm + 1, ypix(lo) + 1, (0, 0, 0))
                    c.rect(xm - 3, ypix(hi), xm + 4, ypix(hi) + 1, (0, 0, 0))
                    c.rect(xm - 3, ypix(lo), xm + 4, ypix(lo) + 1, (0, 0, 0))
                lab = _fmt(med)
                top_y = ypix(hi if hi == hi and hi > med else med)
                c.text(x0 + (bw - 3 - Canvas.text_width(lab, 1)) // 2, top_y - 8, lab, scale=1)
            lab = g
            c.text(int(left + gi * gw + (gw - Canvas.text_width(lab, 2)) / 2), y0 + ph + 6, lab,
                   scale=2)
    c.save(path)


def bar_chart(path, title, panels, groups, series, colors):
    """Writes the chart to path (PNG). Returns "matplotlib" or "builtin": which drew it."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        _bar_chart_png(path, title, panels, groups, series, colors)
        return "builtin"
    fig, axes = plt.subplots(len(panels), 1, figsize=(10, 3 * len(panels)), squeeze=False)
    width = 0.8 / len(series)
    for ax, (ylabel, data) in zip(axes[:, 0], panels):
        for k, (s, col) in enumerate(zip(series, colors)):
            xs, ys, err = [], [], [[], []]
            for i, g in enumerate(groups):
                v = data.get((g, s))
                if not v or v[0] != v[0]:
                    continue
                xs.append(i + (k - (len(series) - 1) / 2) * width)
                ys.append(v[0])
                err[0].append(max(0.0, v[0] - v[1]))
                err[1].append(max(0.0, v[2] - v[0]))
            ax.bar(xs, ys, width, yerr=err, capsize=3, label=s,
                   color=[tuple(x / 255 for x in col)] * len(xs))
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups, fontsize=8)
        ax.set_ylabel(ylabel, fontsize=8)
    axes[0, 0].set_title(title, fontsize=10)
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return "matplotlib"
