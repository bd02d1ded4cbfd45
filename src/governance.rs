//! governance
