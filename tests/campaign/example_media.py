"""How the media of the example campaigns in ``pipelines/media`` were made.

Run ``python -m tests.campaign.example_media`` from the project root to remake them.
They are kept tiny (a few KB) and shaped to follow the spec's recommendations and the
real networks' rules (``pressroom.rules``), so the examples validate without warnings: a
9:16 video for short_video at least 360 px a side (TikTok), videos at 24 frames a second
(TikTok and Instagram take 23 to 60), a 1280x720 JPEG thumbnail, a 2:3 image for pins
(which Instagram's 4:5 to 1.91:1 would refuse, so the examples send it to pin_board only).
"""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw

from tests.support.media import make_video

MEDIA = Path(__file__).resolve().parents[2] / "pipelines" / "media"


def video(path: Path, seconds: int, size: tuple[int, int], fps: int = 24) -> Path:
    """An H.264 MP4: a bar hopping across a flat background twice a second (still frames
    between hops cost almost nothing), squeezed small."""
    width, height = size
    hop = fps // 2

    def sweep(index: int, frames: int) -> Image.Image:
        image = Image.new("RGB", size, (24, 40, 88))
        x = index // hop * hop * width // frames
        ImageDraw.Draw(image).rectangle((x, 0, x + width // 8, height), fill=(240, 180, 40))
        return image

    return make_video(
        path,
        seconds,
        width=width,
        height=height,
        fps=fps,
        encoder_options={"preset": "veryslow", "crf": "40"},
        paint=sweep,
    )


def picture(path: Path, size: tuple[int, int], fmt: str) -> Path:
    """A flat picture with a band across it; edges on 16-pixel blocks keep JPEG tiny."""
    width, height = size
    image = Image.new("RGB", size, (24, 40, 88))
    band = height // 3 // 16 * 16
    ImageDraw.Draw(image).rectangle((0, band, width, 2 * band - 1), fill=(240, 180, 40))
    options = {"quality": 50, "optimize": True} if fmt == "JPEG" else {"optimize": True}
    image.save(path, format=fmt, **options)
    return path


def main() -> None:
    MEDIA.mkdir(parents=True, exist_ok=True)
    video(MEDIA / "teaser-vertical.mp4", seconds=4, size=(360, 640))
    video(MEDIA / "launch.mp4", seconds=5, size=(128, 72))
    picture(MEDIA / "cover.jpg", (1280, 720), "JPEG")
    picture(MEDIA / "poster.png", (200, 300), "PNG")
    for path in sorted(MEDIA.iterdir()):
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
