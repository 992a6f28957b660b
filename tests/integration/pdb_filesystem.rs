//! Filesystem edges: concurrent first opens, unwritable caches, read-only
//! table directories, full disks.

use std::path::Path;
use std::process::Command;

use npuzzle_board::Goal;
use npuzzle_pdb::file;
use npuzzle_pdb::Partition;

use crate::harness::*;
use crate::tables::*;

/// Four solvers started together on a fresh directory unpack each table once.
#[test]
fn simultaneous_first_opens_unpack_once() {
    let dir = scratch();
    let data = dir.path().join("fresh");
    std::fs::create_dir(&data).unwrap();
    let partition = Partition::parse("6-6-3", 4, Goal::BlankLast).unwrap();
    for pattern in partition.patterns() {
        let name = file::file_name(pattern);
        std::fs::copy(tables().join(&name), data.join(&name)).unwrap();
    }
    // Two of them with a time budget, which the unpacking counts against.
    let budgeted = |i: usize| i % 2 == 1;
    let children: Vec<_> = (0..4)
        .map(|i| {
            Command::new(env!("CARGO_BIN_EXE_npuzzle"))
                .args(["solve", "--json", "--partition", "6-6-3", "--pdb-dir"])
                .arg(&data)
                .arg(KORF_3)
                .args(if budgeted(i) {
                    &["--max-seconds", "60"][..]
                } else {
                    &[]
                })
                .env("NPUZZLE_CACHE_DIR", dir.path().join("user-cache"))
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (i, child) in children.into_iter().enumerate() {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success());
        assert!(String::from_utf8_lossy(&output.stdout).contains("\"length\":59"));
        // A second unpack over a first would say it replaced the table;
        // the only note is that the tables are unpacked, once.
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr
                .lines()
                .all(|line| line.starts_with("npuzzle: unpacking the 6-6-3 tables")),
            "{stderr}"
        );
        assert!(
            stderr.lines().all(|line| budgeted(i)
                == line.contains(", once, out of this run's time budget of 60 s:")),
            "{stderr}"
        );
    }
    let names: Vec<String> = std::fs::read_dir(data.join("cache"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    // Three copies, and at most their stamps (written by an open that came
    // long enough after the unpack).
    assert_eq!(
        names.iter().filter(|n| n.ends_with(".pdb")).count(),
        3,
        "{names:?}"
    );
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".pdb") || n.ends_with(".pdb.checked")),
        "{names:?}"
    );
}

/// When the table directory cannot hold the cache, the per-user cache
/// directory does, and then memory; answers stay right.
#[test]
fn an_unwritable_cache_falls_back() {
    let dir = scratch();
    let data = copy_of_tables(dir.path());
    std::fs::remove_dir_all(data.join("cache")).unwrap();
    // `cache` is a file: the directory cannot be made.
    std::fs::write(data.join("cache"), b"in the way").unwrap();
    let user = dir.path().join("user-cache");
    let run = |cache_dir: &Path| {
        let output = Command::new(env!("CARGO_BIN_EXE_npuzzle"))
            .args(["solve", "--json", "--partition", "6-6-3", "--pdb-dir"])
            .arg(&data)
            .arg(KORF_3)
            .env("NPUZZLE_CACHE_DIR", cache_dir)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (status, stdout, stderr) = run(&user);
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stdout.contains("\"length\":59"));
    assert!(
        stderr.contains("cannot write the unpacked table"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&user).unwrap().count(), 3);
    // No writable cache anywhere: unpacked into memory.
    let (status, stdout, stderr) = run(&data.join("cache").join("sub"));
    assert_eq!(status, Some(0), "{stderr}");
    assert!(stdout.contains("\"length\":59"));
    assert!(stderr.contains("into memory"), "{stderr}");
}

/// Whether this run may switch users and mount (root, as in CI): the two
/// tests below need it, and say so when they cannot run.
fn privileged() -> bool {
    let ok = Command::new("unshare")
        .args(["-m", "true"])
        .status()
        .is_ok_and(|s| s.success())
        && Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
            .status()
            .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("skipped: needs root (unshare, setpriv), as CI has");
    }
    ok
}

/// As a user who cannot write the table directory, the per-user cache
/// takes the unpacked tables; the message names the real path and cause.
#[test]
fn a_read_only_table_directory_falls_back_for_other_users() {
    if !privileged() {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let data = dir.path().join("tables");
    std::fs::create_dir(&data).unwrap();
    for pattern in Partition::parse("6-6-3", 4, Goal::BlankLast)
        .unwrap()
        .patterns()
    {
        let name = file::file_name(pattern);
        std::fs::copy(tables().join(&name), data.join(&name)).unwrap();
    }
    let user_cache = dir.path().join("user-cache");
    std::fs::create_dir(&user_cache).unwrap();
    std::fs::set_permissions(&user_cache, std::fs::Permissions::from_mode(0o777)).unwrap();
    let binary = dir.path().join("npuzzle");
    std::fs::copy(env!("CARGO_BIN_EXE_npuzzle"), &binary).unwrap();
    let output = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&binary)
        .args(["solve", "--json", "--partition", "6-6-3", "--pdb-dir"])
        .arg(&data)
        .arg(KORF_3)
        .env("NPUZZLE_CACHE_DIR", &user_cache)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("\"length\":59"));
    assert!(stderr.contains("Permission denied"), "{stderr}");
    assert!(
        stderr.contains(&data.join("cache").display().to_string()),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(&user_cache).unwrap().count(), 3);
}

/// A filesystem too full for the unpacked tables: refused before writing
/// (no half-written file), and the per-user cache takes them.
#[test]
fn a_full_filesystem_falls_back_before_writing() {
    if !privileged() {
        return;
    }
    let dir = scratch();
    let mount = dir.path().join("small");
    std::fs::create_dir(&mount).unwrap();
    let mut copy = String::new();
    for pattern in Partition::parse("6-6-3", 4, Goal::BlankLast)
        .unwrap()
        .patterns()
    {
        let name = file::file_name(pattern);
        copy.push_str(&format!(
            "cp '{}' '{}/' && ",
            tables().join(&name).display(),
            mount.display()
        ));
    }
    let script = format!(
        "mount -t tmpfs -o size=3m tmpfs '{m}' && {copy} '{bin}' solve --json --partition 6-6-3 \
         --pdb-dir '{m}' '{KORF_3}'; status=$?; ls -a '{m}/cache' >&2; exit $status",
        m = mount.display(),
        bin = env!("CARGO_BIN_EXE_npuzzle"),
    );
    let output = Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .env("NPUZZLE_CACHE_DIR", dir.path().join("user-cache"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("\"length\":59"));
    assert!(stderr.contains("no room"), "{stderr}");
    assert!(
        !stderr.lines().any(|l| l.ends_with(".tmp")),
        "a temporary file was left: {stderr}"
    );
}
