//! One I/O error type naming the file, shared by every room.
