//! How long the app takes to read one hook line (numbers go to BENCHMARKS.md, "Soak"):
//! bench/soak's PostToolUse with a 300-line `structuredPatch` (some 20 KB) and its ruled
//! PermissionRequest, read by [`read_line`] and, to compare, the way it read them before: into
//! a `serde_json::Value`, then from that into the tagged `Message`.
//!
//! ```text
//! cargo run --release -p vults-core --example read_line_bench
//! ```

use vults_core::protocol::{Message, ReadLine, read_line};

const RUNS: usize = 3000;

fn post_tool_use() -> String {
    let lines: Vec<String> = (0..300)
        .map(|i| {
            let mark = if i % 2 == 0 { '-' } else { '+' };
            format!(
                "\"{mark}    let value_7_{i} = compute(\\\"/work/soak/src/part_1/mod_7.rs\\\", {i});\""
            )
        })
        .collect();
    let hunks: Vec<String> = lines
        .chunks(50)
        .enumerate()
        .map(|(h, l)| {
            format!(
                "{{\"oldStart\":{s},\"oldLines\":25,\"newStart\":{s},\"newLines\":25,\"lines\":[{}]}}",
                l.join(","),
                s = h * 50 + 1
            )
        })
        .collect();
    format!(
        "{{\"kind\":\"event\",\"v\":9,\"id\":\"soak-000001-post7\",\"agent\":\"claude\",\
         \"event\":\"PostToolUse\",\"wants_reply\":false,\"terminal\":{{\"cwd\":\"/work/soak\",\
         \"pid\":4242,\"env\":{{\"TERM_PROGRAM\":\"soak\"}}}},\"payload\":{{\"session_id\":\
         \"soak-000001\",\"cwd\":\"/work/soak\",\"hook_event_name\":\"PostToolUse\",\
         \"permission_mode\":\"default\",\"tool_name\":\"Edit\",\"tool_input\":{{\"file_path\":\
         \"/work/soak/src/part_1/mod_7.rs\",\"old_string\":\"let a = 7;\",\"new_string\":\
         \"let a = 8;\"}},\"tool_use_id\":\"toolu_1_7\",\"tool_response\":{{\"structuredPatch\":[{}]}}}}}}",
        hunks.join(",")
    )
}

fn request() -> String {
    "{\"kind\":\"event\",\"v\":9,\"id\":\"probe-1\",\"agent\":\"claude\",\"event\":\"PermissionRequest\",\
     \"wants_reply\":true,\"terminal\":{\"cwd\":\"/work/soak\",\"pid\":4242,\"env\":{\"TERM_PROGRAM\":\"soak\"}},\
     \"payload\":{\"session_id\":\"soak-probe\",\"cwd\":\"/work/soak\",\"hook_event_name\":\"PermissionRequest\",\
     \"permission_mode\":\"default\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"cargo test\",\
     \"description\":\"Run the tests\"}}}"
        .to_string()
}

/// The way lines were read before: a `Value`, then the tagged `Message` from it, then (by the
/// engine's connection) the `tool_response` of an event that waits for no reply dropped.
fn read_twice(line: &[u8]) -> Option<Message> {
    let value: serde_json::Value = serde_json::from_slice(line).ok()?;
    let mut message: Message = serde_json::from_value(value).ok()?;
    if let Message::Event(e) = &mut message
        && !e.wants_reply
        && let Some(payload) = e.payload.as_object_mut()
    {
        payload.remove("tool_response");
    }
    Some(message)
}

/// This thread's CPU time, in seconds: on a machine shared with other work the wall clock
/// measures the others too.
#[cfg(unix)]
fn cpu_now() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

#[cfg(not(unix))]
fn cpu_now() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}

fn time(label: &str, line: &str, read: &dyn Fn(&[u8]) -> bool) {
    for _ in 0..100 {
        assert!(read(line.as_bytes()));
    }
    let t = cpu_now();
    for _ in 0..RUNS {
        assert!(read(std::hint::black_box(line.as_bytes())));
    }
    eprintln!(
        "{label:<58} {:>7.1} µs of CPU a line ({} bytes)",
        (cpu_now() - t) * 1e6 / RUNS as f64,
        line.len()
    );
}

fn main() {
    for (what, line) in [
        ("PostToolUse, 300-line patch", post_tool_use()),
        ("ruled PermissionRequest", request()),
    ] {
        assert_eq!(
            read_line(line.as_bytes()),
            ReadLine::Message(read_twice(line.as_bytes()).expect("reads"))
        );
        time(
            &format!("{what}: Value, then Message (before)"),
            &line,
            &|l| read_twice(l).is_some(),
        );
        time(&format!("{what}: read_line"), &line, &|l| {
            matches!(read_line(l), ReadLine::Message(_))
        });
    }
}
