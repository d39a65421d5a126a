"""What makes a `clmodes tune plot` figure readable, measured on the figure as drawn.

Why measured, not looked at: a 90-character GEMM config name as a tick label squeezed the
candidates' panel into a corner and pushed the title and the winner's label off the
image, and nothing failed. Here every visible text's drawn extent must lie inside the
figure, and the candidates' panel must keep a share of the figure's area."""

from __future__ import annotations

from typing import Any

MAIN_SHARE = 0.40  # of its part of the figure (above the key and the parameter panels)
MAIN_WIDTH = 0.70  # of the figure's width


def drawn(figure: Any) -> Any:
    """`figure` drawn on an Agg canvas; its renderer (for window extents)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    return canvas.get_renderer()


def drawn_texts(figure: Any) -> tuple[Any, list[Any]]:
    """(renderer, every `Text` that drawing `figure` draws): what the renderer is asked
    to draw, not every text object (an axis keeps labels for ticks outside its limits,
    and never draws them)."""
    renderer = drawn(figure)
    found: list[Any] = []
    draw_text = renderer.draw_text

    def recording(gc: Any, x: float, y: float, s: str, prop: Any, angle: float,
                  ismath: Any = False, mtext: Any = None) -> None:
        if mtext is not None and s.strip():
            found.append(mtext)
        draw_text(gc, x, y, s, prop, angle, ismath=ismath, mtext=mtext)

    renderer.draw_text = recording
    try:
        figure.draw(renderer)
    finally:
        del renderer.draw_text
    return renderer, list(dict.fromkeys(found))


def texts_outside(figure: Any, slack: float = 1.0) -> list[str]:
    """The texts drawn on `figure` whose drawn extent leaves the figure."""
    renderer, texts = drawn_texts(figure)
    assert texts, "nothing drawn"
    bounds = figure.bbox
    outside = []
    for text in texts:
        box = text.get_window_extent(renderer)
        if (box.x0 < bounds.x0 - slack or box.y0 < bounds.y0 - slack
                or box.x1 > bounds.x1 + slack or box.y1 > bounds.y1 + slack):
            outside.append(f"{text.get_text()[:60]!r} at {box.bounds}")
    return outside


def main_panel(figure: Any) -> tuple[Any, Any]:
    """(the candidates' axes, the part of the figure it is laid out in)."""
    part = figure.subfigs[0] if figure.subfigs else figure
    return part.axes[0], part


def main_shares(figure: Any) -> tuple[float, float]:
    """(area share of its part, width share of the figure) of the candidates' axes: its
    drawing area, without its labels."""
    drawn(figure)
    axes, part = main_panel(figure)
    box, room = axes.get_window_extent(), part.bbox
    return (box.width * box.height) / (room.width * room.height), box.width / figure.bbox.width
