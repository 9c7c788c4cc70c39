"""Every route of the media library, as one router for the app: files, folders, uploads."""

from __future__ import annotations

from fastapi import APIRouter

from pressroom.service.folders.endpoints import router as folders
from pressroom.service.media.endpoints import router as files
from pressroom.service.media.fetch import router as fetches
from pressroom.service.media.receive import router as uploads

router = APIRouter()
for part in (files, folders, uploads, fetches):
    router.include_router(part)
