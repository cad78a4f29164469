//! `zookeeper-shell.sh <server> get <path>` for `/controller`, `/controller_epoch`, each
//! `/brokers/ids/<id>` and each partition state znode, one after another. Kafka 1.0.0 and 1.1.0
//! bundle ZooKeeper 3.4.10, 2.1.0 bundles 3.4.13 (`gradle/dependencies.gradle`); both print the
//! same: the data, then the stat (`ZooKeeperMain.processZKCmd` `get`, 3.4.10
//! `src/java/main/org/apache/zookeeper/ZooKeeperMain.java:723-728`; `printStat` `:134-147`:
//! `cZxid = 0x…`, `ctime = ` `java.util.Date.toString()`, …, `numChildren = `). A missing znode
//! prints `Node does not exist: <path>` (`:602-603`). The data goes to stdout and the stat to
//! stderr in the real tool; here they are one text, in the order a terminal shows them.
//!
//! The model's `Stat` has no times: `ctime`/`mtime` are the virtual time of the step that made
//! `czxid`/`mzxid` ([`ZxidTimes`], recorded while the run steps; the steady state before step 0 is
//! time 0), shown as a `Date` in UTC with virtual time 0 at the Unix epoch. The znodes shown are
//! leaves, so `pZxid` is `cZxid` and `numChildren` is 0; ACLs are open (`aclVersion = 0`).
use crate::world::World;
use crate::zookeeper::data_tree::Znode;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;

/// When each zxid was made: the virtual time of the step after which the tree's zxid first
/// reached it.
#[derive(Clone, Debug, Default)]
pub struct ZxidTimes {
    /// `(zxid, time)`, zxids strictly increasing (a plain vector: no map type of its own in the
    /// page's wasm, and a cheap clone for the page's kept walk).
    seen: Vec<(u64, u64)>,
}

impl ZxidTimes {
    /// Notes the tree's current zxid at the world's time (call after every step).
    pub fn observe(&mut self, world: &World) {
        if let Some(zk) = world.zk() {
            let z = zk.zxid();
            if self.seen.last().is_none_or(|(k, _)| *k < z) {
                self.seen.push((z, world.now()));
            }
        }
    }

    /// The time of `zxid`: the first observation at or past it (0 if none yet).
    pub fn time_of(&self, zxid: u64) -> u64 {
        let i = self.seen.partition_point(|(k, _)| *k < zxid);
        self.seen.get(i).map_or(0, |(_, t)| *t)
    }
}

/// One `get`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Get {
    /// Path.
    pub path: String,
    /// The znode and its times (`ctime`, `mtime`), or `None` when it does not exist.
    pub node: Option<(Znode, u64, u64)>,
}

/// The `get`s, in order: `/controller`, `/controller_epoch`, `/brokers/ids/*`, the state znodes.
pub fn gets(world: &World, times: &ZxidTimes) -> Result<Vec<Get>, String> {
    let zk =
        world.zk().ok_or_else(|| String::from("this mode has no ZooKeeper: zookeeper-shell has nothing to read"))?;
    let mut paths: Vec<String> = alloc::vec![String::from("/controller"), String::from("/controller_epoch")];
    paths.extend(zk.children("/brokers/ids").into_iter().map(|b| format!("/brokers/ids/{b}")));
    paths.extend(world.config().assignment.keys().map(|tp| tp.state_path()));
    Ok(paths
        .into_iter()
        .map(|path| {
            let node = zk.get(&path).map(|n| (n.clone(), times.time_of(n.stat.czxid), times.time_of(n.stat.mzxid)));
            Get { path, node }
        })
        .collect())
}

/// The civil date (year, month 1-12, day 1-31) of `days` since 1970-01-01, before it too (Howard
/// Hinnant's algorithm).
pub fn civil_date(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// `java.util.Date.toString()` in UTC: `EEE MMM dd HH:mm:ss zzz yyyy`.
pub fn java_date(ms: u64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_date(days as i64);
    format!(
        "{} {} {:02} {:02}:{:02}:{:02} UTC {}",
        DAYS[(days % 7) as usize],
        MONTHS[(m - 1) as usize],
        d,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        y
    )
}

/// The shell's output.
pub fn render(gets: &[Get]) -> String {
    let mut s = String::new();
    for g in gets {
        match &g.node {
            None => {
                let _ = writeln!(s, "Node does not exist: {}", g.path);
            }
            Some((n, ctime, mtime)) => {
                let data = n.data.to_json();
                let st = &n.stat;
                let _ = writeln!(s, "{data}");
                let _ = writeln!(s, "cZxid = 0x{:x}", st.czxid);
                let _ = writeln!(s, "ctime = {}", java_date(*ctime));
                let _ = writeln!(s, "mZxid = 0x{:x}", st.mzxid);
                let _ = writeln!(s, "mtime = {}", java_date(*mtime));
                let _ = writeln!(s, "pZxid = 0x{:x}", st.czxid);
                let _ = writeln!(s, "cversion = {}", st.cversion);
                let _ = writeln!(s, "dataVersion = {}", st.version);
                let _ = writeln!(s, "aclVersion = 0");
                let _ = writeln!(s, "ephemeralOwner = 0x{:x}", st.ephemeral_owner.unwrap_or(0));
                let _ = writeln!(s, "dataLength = {}", data.len());
                let _ = writeln!(s, "numChildren = 0");
            }
        }
    }
    s
}
