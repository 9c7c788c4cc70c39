"""The media library: presigned uploads, processing to readiness, downloads, folders."""
