/**
 * The seal of our zip archives: the end record's comment, holding the sha256 of every byte before
 * the end record. Written by the archive writer (create/zip-writer.ts), checked by the zip reader
 * (zipread.ts).
 */
export const SEAL_PREFIX = 'hfx-seal-v1 sha256:';
export const SEAL_LENGTH = SEAL_PREFIX.length + 64;
export const SEAL_PATTERN = /^hfx-seal-v1 sha256:([0-9a-f]{64})$/;
