//! repo_path
