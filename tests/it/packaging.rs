//! Install without a toolchain: the packaging scripts (`packaging/`) turn
//! the built binary into the host platform's npm packages, wheel and
//! archive; each is installed from the local files with the registry's own
//! client (npm into an empty folder, pip into a fresh virtual environment),
//! with no network (npm is pointed at a closed port, pip at no index), and
//! the installed command answers `--version` and a real MCP handshake
//! (`initialize`, then `tools/list`) over stdio. `server.json` is checked
//! against the MCP Registry's published schema, kept in
//! `tests/fixtures/reference/`.
//!
//! What is packed: `NOTARAI_PACKAGING_BINARY` when set (the release build,
//! for the figures in docs/install.md), else a copy of the debug binary,
//! stripped where `strip` is found (packing 190 MB of debug info would take
//! a minute and prove nothing more). A test whose tool is missing (Python
//! 3.11+, npm) prints `skipped: ...`; each prints its sizes and times.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use notarai::rpc_client::{Client, SpawnOptions};
use serde_json::Value;

use crate::common::{ANSWER_TIMEOUT, BIN, Repo, TOOL_NAMES};

/// The version every package carries: the workspace's.
const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The name on every registry (the crate's package name).
const PACKAGE: &str = env!("CARGO_PKG_NAME");

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Rust target of this machine, when packaging/platforms.py has a row for it.
fn host_target() -> Option<&'static str> {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", "x86_64") => Some("x86_64-unknown-linux-gnu"),
        ("linux", "aarch64") => Some("aarch64-unknown-linux-gnu"),
        ("macos", "x86_64") => Some("x86_64-apple-darwin"),
        ("macos", "aarch64") => Some("aarch64-apple-darwin"),
        ("windows", "x86_64") => Some("x86_64-pc-windows-msvc"),
        _ => None,
    }
}

/// A Python of 3.11 or newer (the scripts read Cargo.toml with `tomllib`).
fn python() -> Option<String> {
    let name = if cfg!(windows) { "python" } else { "python3" };
    let ok = Command::new(name)
        .args(["-c", "import sys; sys.exit(sys.version_info < (3, 11))"])
        .output()
        .is_ok_and(|out| out.status.success());
    ok.then(|| name.to_string())
}

/// `program` on PATH as a command (npm is `npm.cmd` on Windows).
fn tool(program: &str) -> Option<String> {
    let name = if cfg!(windows) {
        format!("{program}.cmd")
    } else {
        program.to_string()
    };
    let ok = Command::new(&name)
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    ok.then_some(name)
}

/// Run `cmd`; its output, or a failure with its stderr.
fn run_ok(cmd: &mut Command, what: &str) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The binary to pack, in `work`.
fn binary_to_pack(work: &Path) -> PathBuf {
    if let Some(given) = std::env::var_os("NOTARAI_PACKAGING_BINARY") {
        return PathBuf::from(given);
    }
    let copy = work.join(if cfg!(windows) {
        "notarai.exe"
    } else {
        "notarai"
    });
    let stripped = cfg!(target_os = "linux")
        && Command::new("strip")
            .arg("-o")
            .arg(&copy)
            .arg(BIN)
            .output()
            .is_ok_and(|out| out.status.success());
    if !stripped {
        std::fs::copy(BIN, &copy).expect("copy the binary");
    }
    copy
}

/// Run one packaging script; the path of what it built (its last stdout line).
fn package(
    python: &str,
    script: &str,
    args: &[&str],
    binary: Option<&Path>,
    out: &Path,
) -> PathBuf {
    let mut cmd = Command::new(python);
    cmd.arg(root().join(script))
        .args(args)
        .arg("--out")
        .arg(out);
    if let Some(binary) = binary {
        cmd.arg("--binary").arg(binary);
    }
    let printed = run_ok(&mut cmd, script);
    let text = String::from_utf8_lossy(&printed.stdout);
    let path = PathBuf::from(text.lines().last().expect("the script prints its output"));
    assert!(
        path.is_file(),
        "{script} printed {}, which is not a file",
        path.display()
    );
    path
}

/// A file's size for the figures: kB under a megabyte, MB (10^6 bytes) above.
fn size_mb(path: &Path) -> String {
    let bytes = std::fs::metadata(path).expect("built file").len() as f64;
    if bytes < 1_000_000.0 {
        format!("{:.1} kB", bytes / 1_000.0)
    } else {
        format!("{:.1} MB", bytes / 1_000_000.0)
    }
}

fn name_of(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// `--version` through an installed command prints notarai's version.
fn assert_version(command: &Path) {
    let out = run_ok(Command::new(command).arg("--version"), "--version");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("notarai {VERSION}"),
        "{}",
        command.display()
    );
}

/// A real MCP session through an installed command: `initialize` names the
/// server and its version, `tools/list` lists every tool, and end of input
/// ends it.
fn assert_handshake(command: &Path) {
    let repo = Repo::with_spec();
    let mut cmd = Command::new(command);
    cmd.args(["mcp", "--root"]).arg(&repo.root);
    let options = SpawnOptions {
        timeout: ANSWER_TIMEOUT,
        own_group: true,
        ..SpawnOptions::default()
    };
    let mut client = Client::spawn(cmd, options).expect("the installed command starts");
    let init = client
        .initialize("notarai-packaging-test", "1")
        .unwrap_or_else(|e| panic!("initialize: {e}; stderr: {}", client.stderr()));
    let info = &init.message.result().expect("initialize succeeds")["serverInfo"];
    assert_eq!(info["name"], "notarai");
    assert_eq!(info["version"], VERSION);
    let listed = client
        .ask::<Value>("tools/list", None)
        .expect("tools/list answers");
    let tools: Vec<&str> = listed.message.result().expect("tools/list succeeds")["tools"]
        .as_array()
        .expect("a tool list")
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(tools, TOOL_NAMES);
    client.close_stdin();
    assert!(
        client.exited_within(ANSWER_TIMEOUT),
        "the server (behind {}) did not exit at end of input",
        command.display()
    );
}

/// The npm launcher and the host's platform package, installed offline into
/// an empty folder: `npm install ./launcher.tgz ./platform.tgz`.
#[test]
fn npm_packages_install_offline_and_serve() {
    let (Some(target), Some(python), Some(npm)) = (host_target(), python(), tool("npm")) else {
        println!("skipped: needs a packaged host platform, Python 3.11+ and npm");
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let binary = binary_to_pack(work.path());
    let dist = work.path().join("dist");
    let start = Instant::now();
    let platform = package(
        &python,
        "packaging/npm/build.py",
        &["platform", "--target", target],
        Some(&binary),
        &dist,
    );
    let launcher = package(
        &python,
        "packaging/npm/build.py",
        &["launcher"],
        None,
        &dist,
    );
    let packed = start.elapsed();

    let project = work.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let npmrc = work.path().join("npmrc");
    std::fs::write(&npmrc, "").unwrap();
    let mut install = Command::new(&npm);
    install
        .current_dir(&project)
        .args([
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
        ])
        // No network: a closed port as the registry, a fresh cache, no user config.
        .args(["--registry", "http://127.0.0.1:9/"])
        .arg("--cache")
        .arg(work.path().join("npm-cache"))
        .arg("--userconfig")
        .arg(&npmrc)
        .args([&launcher, &platform]);
    let start = Instant::now();
    run_ok(&mut install, "npm install from the local tarballs");
    let installed = start.elapsed();

    let modules = project.join("node_modules");
    for package in [
        PACKAGE.to_string(),
        format!("{PACKAGE}-{}", npm_platform(target)),
    ] {
        let manifest: Value = serde_json::from_str(
            &std::fs::read_to_string(modules.join(&package).join("package.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(manifest["version"], VERSION, "{package}");
        assert!(
            manifest.get("scripts").is_none(),
            "{package} has scripts: {manifest}"
        );
        if package == PACKAGE {
            assert_eq!(
                manifest["mcpName"],
                server_json()["name"],
                "the launcher names the server"
            );
        }
    }
    let command = modules.join(".bin").join(if cfg!(windows) {
        "notarai.cmd"
    } else {
        "notarai"
    });
    assert_version(&command);
    // The launcher passes the binary's exit status on (clap's 2 for a usage error).
    let usage = Command::new(&command)
        .arg("no-such-command")
        .output()
        .unwrap();
    assert_eq!(
        usage.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&usage.stderr)
    );
    assert_handshake(&command);
    println!(
        "figures: npm {} {}, {} {}; packed in {:.1} s; npm install (offline) {:.1} s",
        name_of(&launcher),
        size_mb(&launcher),
        name_of(&platform),
        size_mb(&platform),
        packed.as_secs_f64(),
        installed.as_secs_f64()
    );
}

/// npm's `<os>-<cpu>` of a Rust target (packaging/platforms.py's table).
fn npm_platform(target: &str) -> &'static str {
    match target {
        "x86_64-unknown-linux-gnu" => "linux-x64",
        "aarch64-unknown-linux-gnu" => "linux-arm64",
        "x86_64-apple-darwin" => "darwin-x64",
        "aarch64-apple-darwin" => "darwin-arm64",
        _ => "win32-x64",
    }
}

/// The host's wheel, installed offline by pip into a fresh virtual environment.
#[test]
fn wheel_installs_offline_and_serves() {
    let (Some(target), Some(python)) = (host_target(), python()) else {
        println!("skipped: needs a packaged host platform and Python 3.11+");
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let binary = binary_to_pack(work.path());
    let start = Instant::now();
    let wheel = package(
        &python,
        "packaging/pypi/build_wheel.py",
        &["--target", target],
        Some(&binary),
        &work.path().join("dist"),
    );
    let packed = start.elapsed();

    let venv = work.path().join("venv");
    let start = Instant::now();
    let mut create = Command::new(&python);
    create.args(["-m", "venv"]).arg(&venv);
    run_ok(&mut create, "python -m venv");
    let created = start.elapsed();
    let bin = venv.join(if cfg!(windows) { "Scripts" } else { "bin" });
    let exe = |name: &str| bin.join(format!("{name}{}", std::env::consts::EXE_SUFFIX));
    let pip_config = work.path().join("pip.conf");
    std::fs::write(&pip_config, "").unwrap();
    let mut install = Command::new(exe("python"));
    install
        .args([
            "-m",
            "pip",
            "install",
            "--no-index",
            "--no-deps",
            "--no-cache-dir",
        ])
        .args(["--disable-pip-version-check", "--quiet"])
        // No network and no configured wheel folder: only this wheel.
        .env("PIP_CONFIG_FILE", &pip_config)
        .arg(&wheel);
    let start = Instant::now();
    run_ok(&mut install, "pip install from the local wheel");
    let installed = start.elapsed();

    assert_version(&exe("notarai"));
    // `uvx notarai-rs` runs the command named like the package.
    assert_version(&exe(PACKAGE));
    assert_handshake(&exe("notarai"));
    println!(
        "figures: wheel {} {}; built in {:.1} s; venv {:.1} s; pip install (offline) {:.1} s",
        name_of(&wheel),
        size_mb(&wheel),
        packed.as_secs_f64(),
        created.as_secs_f64(),
        installed.as_secs_f64()
    );
}

/// The release archive unpacks (with Python's own tar/zip reader) to a
/// working binary, and its .sha256 file holds the archive's digest.
#[test]
fn archive_unpacks_and_matches_its_checksum() {
    let (Some(target), Some(python)) = (host_target(), python()) else {
        println!("skipped: needs a packaged host platform and Python 3.11+");
        return;
    };
    let work = tempfile::tempdir().unwrap();
    let binary = binary_to_pack(work.path());
    let archive = package(
        &python,
        "packaging/archive.py",
        &["--target", target],
        Some(&binary),
        &work.path().join("dist"),
    );
    let check = "import hashlib, pathlib, sys\n\
                 archive = pathlib.Path(sys.argv[1])\n\
                 digest, name = pathlib.Path(f'{archive}.sha256').read_text().split()\n\
                 assert name == archive.name, name\n\
                 assert digest == hashlib.sha256(archive.read_bytes()).hexdigest(), 'digest differs'\n";
    let mut verify = Command::new(&python);
    verify.args(["-c", check]).arg(&archive);
    run_ok(&mut verify, "the archive's checksum");
    let unpacked = work.path().join("unpacked");
    let module = if cfg!(windows) { "zipfile" } else { "tarfile" };
    let mut unpack = Command::new(&python);
    unpack
        .args(["-m", module, "-e"])
        .arg(&archive)
        .arg(&unpacked);
    run_ok(&mut unpack, "unpack the archive");
    let folder = unpacked.join(format!("notarai-{VERSION}-{target}"));
    assert!(folder.join("LICENSE").is_file() && folder.join("README.md").is_file());
    let command = folder.join(format!("notarai{}", std::env::consts::EXE_SUFFIX));
    assert_version(&command);
    println!(
        "figures: archive {} {}",
        name_of(&archive),
        size_mb(&archive)
    );
}

fn server_json() -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join("server.json")).unwrap()).unwrap()
}

/// server.json is valid against the registry's published schema (2025-12-11,
/// formats checked), names this version and the package of every registry,
/// and starts the server with `mcp`.
#[test]
fn server_json_is_valid_against_the_registry_schema() {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            root().join("tests/fixtures/reference/mcp-server-schema-2025-12-11.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the registry's schema compiles");
    let document = server_json();
    let errors: Vec<String> = validator
        .iter_errors(&document)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "server.json: {errors:#?}");
    assert_eq!(
        document["$schema"], schema["$id"],
        "server.json names the schema it is checked against"
    );
    assert_eq!(document["version"], VERSION);
    let packages = document["packages"].as_array().unwrap();
    let kinds: Vec<&str> = packages
        .iter()
        .map(|p| p["registryType"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["npm", "pypi", "cargo"]);
    for package in packages {
        assert_eq!(package["identifier"], PACKAGE, "{package}");
        assert_eq!(package["version"], VERSION, "{package}");
        assert_eq!(package["transport"]["type"], "stdio");
        assert_eq!(package["packageArguments"][0]["value"], "mcp");
    }
    // The check can fail: the same document without its name is refused.
    let mut nameless = document.clone();
    nameless.as_object_mut().unwrap().remove("name");
    assert!(!validator.is_valid(&nameless));
}
