"""Connected social accounts and the moves of spec section 3.

Connections are made and removed only by the dashboard (here: ``pressroom admin``); the
API lists them. A photo_sharing account brings a text_thread twin with it; the twin is
inactive while that account is disconnected or its token has expired, and active again
when it is reconnected. A removed connection stays in the table (soft delete) so the
post history keeps its target, but the API never shows it again: its id is a 404.
Inactive connections count toward the plan's profiles-per-platform cap.
"""
