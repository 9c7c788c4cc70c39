"""Folders that organise the media library (spec 4.2).

A file joins a folder through ``folderId`` when its upload URL is requested, or later by
``PATCH /api/upload/file/{fileId}`` (``null`` takes it out). Renaming changes only the
name. Deleting a folder deletes every file in it with its bytes: the records go in the
request's transaction and the bytes right after it commits; bytes that cannot be
removed then are swept later, so no listed file ever lacks its bytes. Rows of the
folder are locked (``FOR UPDATE`` on PostgreSQL; SQLite serialises writers anyway)
while a file is put in it or it is deleted, so a file cannot slip into a folder that is
being deleted.
"""
