//! hashing
