//! Spawn-to-exit timer for the hook benchmark: runs a command N times with a file on stdin and
//! stdout discarded, and prints the median, p10, p90 and mean wall time in milliseconds.
//!
//! Usage: spawn_timer <runs> <stdin-file> <label> -- <command> [args…]
use std::process::{Command, Stdio};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sep = args.iter().position(|a| a == "--").expect("usage: runs file label -- cmd");
    let runs: usize = args[1].parse().expect("runs");
    let input = &args[2];
    let label = &args[3];
    let cmd = &args[sep + 1..];
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs + 5 {
        let stdin = std::fs::File::open(input).expect("stdin file");
        let t = Instant::now();
        let status = Command::new(&cmd[0])
            .args(&cmd[1..])
            .stdin(Stdio::from(stdin))
            .stdout(Stdio::null())
            .status()
            .expect("spawn");
        let dt = t.elapsed().as_secs_f64() * 1000.0;
        assert!(status.success(), "{label} exited with {status}");
        if i >= 5 {
            times.push(dt); // the first five warm the page cache
        }
    }
    times.sort_by(|a, b| a.total_cmp(b));
    let pct = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    println!(
        "| {label} | {:.2} | {:.2} | {:.2} | {:.2} | {runs} |",
        pct(0.5),
        pct(0.1),
        pct(0.9),
        mean
    );
}
