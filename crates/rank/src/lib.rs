//! rank
