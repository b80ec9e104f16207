//! SSH hosts' tests, in one binary: the links while the app runs (`links`). `remote add` and
//! `remove` through the command line are the app's tests (vults-app/tests/remote_hosts.rs); the
//! real sshd run is tests/real-agents/ssh_host.rs.

mod links;
