"""Inline SVG plots for the report: validation and test scores night over night.

Hand-built SVG rather than a plotting library: the report must be one self-contained file
with no scripts, and two polylines with labelled axes need nothing more.

A night that failed (its model could not answer) or abstained (too few validation tasks)
has no score: it is drawn as a labelled marker on the axis, never as a point, and the lines
break around it rather than bridge it, so an empty night can never pass for a 0 (or for a
score it did not measure).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from skillopt_sleep.records import NightResult

__all__ = ["SERIES", "Point", "score_plot", "series_points"]

SERIES = (("validation", "#2563eb", ""), ("test", "#c2410c", "6 4"))
"""(name, colour, dash pattern) of each plotted score."""

_W, _H = 960, 300
_LEFT, _RIGHT, _TOP, _BOTTOM = 64, 20, 36, 58


@dataclass(frozen=True)
class Point:
    """One x position of the plot: the starting skill, or the skill after one night."""

    label: str
    night_id: str
    validation: float | None
    test: float | None
    tonight: bool = False
    gap: str = ""
    """``failed`` or ``abstained``: a night without a score, drawn as a labelled marker."""
    why: str = ""


def _gap(r: NightResult) -> str:
    return "failed" if r.failed else "abstained" if r.abstained else ""


def series_points(history: Sequence[NightResult], tonight: set[str]) -> list[Point]:
    """A 'start' point (the first scored night's baseline), then each night's after-scores;
    a failed or abstained night is a gap with its reason, not a score."""
    if not history:
        return []
    scored = [r for r in history if not _gap(r)]
    first = scored[0] if scored else history[0]
    points = [Point("start", first.night_id, first.baseline_val if scored else None,
                    first.baseline_test if scored else None)]
    dates = [r.started_at.strftime("%b %d") if r.started_at else "" for r in history]
    use_dates = all(dates) and len(set(dates)) == len(dates)
    for i, r in enumerate(history, start=1):
        label = dates[i - 1] if use_dates else f"night {i}"
        gap = _gap(r)
        if gap:
            points.append(Point(label, r.night_id, None, None, r.night_id in tonight, gap,
                                r.failed or r.abstained))
        else:
            points.append(Point(label, r.night_id, r.after_val, r.after_test,
                                r.night_id in tonight))
    return points


def _x(i: int, n: int) -> float:
    span = _W - _LEFT - _RIGHT
    return _LEFT + (span / 2 if n == 1 else span * i / (n - 1))


def _y(v: float, lo: float, hi: float) -> float:
    return _TOP + (_H - _TOP - _BOTTOM) * (1 - (v - lo) / (hi - lo))


def _axes(points: Sequence[Point], lo: float, hi: float) -> list[str]:
    n, base = len(points), _H - _BOTTOM
    out = [f'<line class="axis" x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{base}"/>',
           f'<line class="axis" x1="{_LEFT}" y1="{base}" x2="{_W - _RIGHT}" y2="{base}"/>']
    for k in range(5):
        v = lo + (hi - lo) * k / 4
        y = _y(v, lo, hi)
        out.append(f'<line class="grid" x1="{_LEFT}" y1="{y:.1f}" x2="{_W - _RIGHT}" '
                   f'y2="{y:.1f}"/><text class="tick" x="{_LEFT - 8}" y="{y + 4:.1f}" '
                   f'text-anchor="end">{v:.2f}</text>')
    for i, p in enumerate(points):
        x = _x(i, n)
        if p.tonight:
            out.append(f'<rect class="tonight" x="{x - 18:.1f}" y="{_TOP}" width="36" '
                       f'height="{base - _TOP}"/>')
        out.append(f'<text class="tick" x="{x:.1f}" y="{base + 18}" text-anchor="middle">'
                   f'{escape(p.label)}</text>')
        if p.gap:
            out.append(_gap_marker(p, x, base))
    out.append(f'<text class="axis-title" x="{(_LEFT + _W - _RIGHT) / 2:.0f}" y="{_H - 10}" '
               'text-anchor="middle">night (score of the skill each night ended with)</text>')
    out.append(f'<text class="axis-title" transform="translate(16 {(_TOP + base) / 2:.0f}) '
               'rotate(-90)" text-anchor="middle">score (0–1)</text>')
    return out


def _gap_marker(p: Point, x: float, base: float) -> str:
    """A failed or abstained night: a hatched column and its word on the axis, no point."""
    return (f'<g class="gap {p.gap}" data-night="{escape(p.night_id)}" data-gap="{p.gap}">'
            f"<title>{escape(p.label)} · {p.gap}: {escape(p.why)}\n{escape(p.night_id)}</title>"
            f'<rect class="gap-band" x="{x - 12:.1f}" y="{_TOP}" width="24" '
            f'height="{base - _TOP}"/><text class="gap-label" x="{x:.1f}" y="{base - 8:.1f}" '
            f'text-anchor="middle">{p.gap}</text></g>')


def _runs(xy: Sequence[tuple[int, Point, float | None]]) -> list[list[tuple[int, float]]]:
    """Stretches of scored points; a gap night ends one (a missing test score does not)."""
    runs: list[list[tuple[int, float]]] = [[]]
    for i, p, v in xy:
        if p.gap and runs[-1]:
            runs.append([])
        elif v is not None:
            runs[-1].append((i, v))
    return [run for run in runs if len(run) > 1]


def _series(points: Sequence[Point], name: str, colour: str, dash: str,
            lo: float, hi: float) -> list[str]:
    n = len(points)
    xy = [(i, p, getattr(p, name)) for i, p in enumerate(points)]
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    out = []
    for run in _runs(xy):
        coords = " ".join(f"{_x(i, n):.1f},{_y(v, lo, hi):.1f}" for i, v in run)
        out.append(f'<polyline class="line {name}" fill="none" stroke="{colour}" '
                   f'stroke-width="2.5"{dash_attr} points="{coords}"/>')
    for i, p, v in xy:
        if v is None:
            continue
        out.append(f'<circle class="pt {name}" data-night="{escape(p.night_id)}" '
                   f'data-label="{escape(p.label)}" cx="{_x(i, n):.1f}" cy="{_y(v, lo, hi):.1f}" '
                   f'r="4.5" fill="{colour}"><title>{escape(p.label)} · {name} {v:.3f}'
                   f'\n{escape(p.night_id)}</title></circle>')
        if p.tonight or i == 0:
            other = p.test if name == "validation" else p.validation
            above = other is None or v > other or (v == other and name == "validation")
            out.append(_value_label(colour, v, (_x(i, n), _y(v, lo, hi)), i, n, above))
    return out


def _value_label(colour: str, v: float, at: tuple[float, float], i: int, n: int,
                 above: bool) -> str:
    """The score printed beside a point: the higher series above, the lower below, so the
    two labels never overlap; kept inside the plot at both ends."""
    x, y = at
    anchor, dx = ("start", 8) if i == 0 else ("end", -8) if i == n - 1 else ("middle", 0)
    dy = -9 if above else 18
    return (f'<text class="value" x="{x + dx:.1f}" y="{y + dy:.1f}" '
            f'text-anchor="{anchor}" fill="{colour}">{v:.3f}</text>')


def _legend(gaps: bool) -> list[str]:
    out = []
    for k, (name, colour, dash) in enumerate(SERIES):
        x = _LEFT + 8 + k * 150
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<line x1="{x}" y1="18" x2="{x + 26}" y2="18" stroke="{colour}" '
                   f'stroke-width="2.5"{dash_attr}/>')
        out.append(f'<text class="legend" x="{x + 32}" y="22">{name} score</text>')
    out.append(f'<rect class="tonight" x="{_LEFT + 308}" y="10" width="14" height="14"/>'
               f'<text class="legend" x="{_LEFT + 328}" y="22">tonight</text>')
    if gaps:
        out.append(f'<rect class="gap-band" x="{_LEFT + 408}" y="10" width="14" height="14"/>'
                   f'<text class="legend" x="{_LEFT + 428}" y="22">failed or abstained: no '
                   "score</text>")
    return out


def _range(points: Sequence[Point]) -> tuple[float, float]:
    """0–1 unless every score sits in a narrow band, then zoom in so changes are visible."""
    values = [v for p in points for v in (p.validation, p.test) if v is not None]
    if not values or max(values) - min(values) >= 0.25:
        return 0.0, 1.0
    lo = max(0.0, min(values) - 0.1)
    return lo, min(1.0, lo + max(0.25, max(values) - lo + 0.1))


def score_plot(history: Sequence[NightResult], *, tonight: set[str], label: str = "") -> str:
    """An ``<svg>`` of validation and test scores for one skill's nights (oldest first)."""
    points = series_points(history, tonight)
    if not points:
        return ""
    lo, hi = _range(points)
    title = escape(label or "validation and test scores night over night")
    parts = [f'<svg class="plot" role="img" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" '
             f'aria-label="{title}"><title>{title}</title>',
             *_axes(points, lo, hi), *_legend(any(p.gap for p in points))]
    for name, colour, dash in SERIES:
        parts.extend(_series(points, name, colour, dash, lo, hi))
    parts.append("</svg>")
    return "\n".join(parts)
