//! `splitbrain zk-replay <file|->`: ZooKeeper client operations, one JSON object a line, applied
//! to the model's ZooKeeper ([`DataTree`], one server), one JSON line out per operation.
//!
//! In: `{"s":"s1","op":"connect"}`, `close`, `expire` (an extension: the server expires the session
//! as if its client had gone silent), `create` (`path`, `data`, `ephemeral`, `sequential`), `delete`
//! (`path`, `version`, -1 = any), `set` (`path`, `data`, `version`), `get`/`exists`/`children`
//! (`path`, `watch`), `multi` (`ops`: `check`, `create`, `set`, `delete`, with the same fields).
//! Out: `{"i":N,"ok":true,…}` or `{"i":N,"error":"NONODE"}` (a failed multi: its first failing op's
//! code), `N` the input line, each with `"watches"`: the notifications the operation fired, sorted
//! by session, path and type. A request on a closed or expired session gets `SESSIONEXPIRED`, as
//! the Java client answers once its session is gone. Bad input (not JSON, an unknown op, a missing
//! field, a session never connected, a path ZooKeeper would refuse) ends the replay with an error
//! naming the line.
use splitbrain_sim::ids::NodeId;
use splitbrain_sim::znodes::ZData;
use splitbrain_sim::zookeeper::data_tree::DataTree;
use splitbrain_sim::zookeeper::ops::{MultiOp, ZkOp, ZkResult};
use splitbrain_sim::zookeeper::session::SessionId;
use splitbrain_sim::zookeeper::watch::WatchEvent;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The replay: the tree and the session names.
pub struct Replay {
    tree: DataTree,
    by_name: BTreeMap<String, SessionId>,
    names: BTreeMap<SessionId, String>,
}

impl Default for Replay {
    fn default() -> Self {
        Replay { tree: DataTree::new(), by_name: BTreeMap::new(), names: BTreeMap::new() }
    }
}

type Obj = serde_json::Map<String, serde_json::Value>;

fn field<'a>(o: &'a Obj, k: &str) -> Result<&'a serde_json::Value, String> {
    o.get(k).ok_or_else(|| format!("missing field '{k}'"))
}

fn text(o: &Obj, k: &str) -> Result<String, String> {
    field(o, k)?.as_str().map(String::from).ok_or_else(|| format!("field '{k}' must be a string"))
}

fn flag(o: &Obj, k: &str) -> Result<bool, String> {
    match o.get(k) {
        None => Ok(false),
        Some(v) => v.as_bool().ok_or_else(|| format!("field '{k}' must be true or false")),
    }
}

fn version(o: &Obj) -> Result<i32, String> {
    match o.get("version") {
        None => Ok(-1),
        Some(v) => v
            .as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(|| String::from("field 'version' must be a 32-bit integer")),
    }
}

fn data(o: &Obj) -> Result<ZData, String> {
    match o.get("data") {
        None => Ok(ZData::Raw { text: String::new() }),
        Some(v) => v
            .as_str()
            .map(|t| ZData::Raw { text: t.into() })
            .ok_or_else(|| String::from("field 'data' must be a string")),
    }
}

/// A path ZooKeeper accepts (`PathUtils.validatePath`): `/`, or `/`-separated non-empty names
/// other than `.` and `..`, with no trailing `/`.
fn path(o: &Obj) -> Result<String, String> {
    let p = text(o, "path")?;
    let ok = p == "/"
        || (p.starts_with('/')
            && p[1..].split('/').all(|n| !n.is_empty() && n != "." && n != "..")
            && !p.contains('\0'));
    if ok {
        Ok(p)
    } else {
        Err(format!("invalid path '{}'", shown(&p)))
    }
}

fn multi_op(v: &serde_json::Value) -> Result<MultiOp, String> {
    let o = v.as_object().ok_or("each multi op must be an object")?;
    Ok(match text(o, "op")?.as_str() {
        "check" => MultiOp::Check { path: path(o)?, version: version(o)? },
        "create" => MultiOp::Create {
            path: path(o)?,
            data: data(o)?,
            ephemeral: flag(o, "ephemeral")?,
            sequential: flag(o, "sequential")?,
        },
        "set" => MultiOp::SetData { path: path(o)?, data: data(o)?, version: version(o)? },
        "delete" => MultiOp::Delete { path: path(o)?, version: version(o)? },
        other => return Err(format!("unknown multi op '{}' (check, create, set, delete)", shown(other))),
    })
}

/// A name from the input as an error message shows it: control characters (a JSON `"\n"` in a
/// session name or path) escaped, so the message stays one line.
fn shown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

fn quote(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

impl Replay {
    /// Applies one input line (numbered `i`) and returns its output line, or why it is bad input.
    pub fn line(&mut self, i: usize, line: &str) -> Result<String, String> {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("not JSON: {e}"))?;
        let o = v.as_object().ok_or("not a JSON object")?;
        let s = text(o, "s")?;
        let op = text(o, "op")?;
        let mut out = format!("{{\"i\":{i}");
        let events = match op.as_str() {
            "connect" => {
                if self.by_name.get(&s).is_some_and(|id| self.tree.is_live(*id)) {
                    return Err(format!("session '{}' is already connected", shown(&s)));
                }
                let id = self.tree.open_session(NodeId::Broker(0), 30_000, 0);
                self.by_name.insert(s.clone(), id);
                self.names.insert(id, s.clone());
                out.push_str(",\"ok\":true");
                Vec::new()
            }
            "close" | "expire" => {
                let id = self.session(&s)?;
                let (_, events) = if op == "close" { self.tree.close_session(id) } else { self.tree.expire(id) };
                out.push_str(",\"ok\":true");
                events
            }
            _ => {
                let id = self.session(&s)?;
                let req = match op.as_str() {
                    "create" => ZkOp::Create {
                        path: path(o)?,
                        data: data(o)?,
                        ephemeral: flag(o, "ephemeral")?,
                        sequential: flag(o, "sequential")?,
                    },
                    "delete" => ZkOp::Delete { path: path(o)?, version: version(o)? },
                    "set" => ZkOp::SetData { path: path(o)?, data: data(o)?, version: version(o)? },
                    "get" => ZkOp::GetDataPlain { path: path(o)?, watch: flag(o, "watch")? },
                    "exists" => ZkOp::Exists { path: path(o)?, watch: flag(o, "watch")? },
                    "children" => ZkOp::GetChildren { path: path(o)?, watch: flag(o, "watch")? },
                    "multi" => ZkOp::Multi {
                        ops: field(o, "ops")?
                            .as_array()
                            .ok_or("field 'ops' must be an array")?
                            .iter()
                            .map(multi_op)
                            .collect::<Result<_, _>>()?,
                    },
                    other => return Err(format!("unknown op '{}'", shown(other))),
                };
                let (result, events) = self.tree.apply(id, &req, 0);
                self.result(&req, result, &mut out);
                events
            }
        };
        out.push_str(",\"watches\":[");
        let mut w: Vec<(&str, &str, &str)> = events.iter().map(|e| self.event(e)).collect();
        w.sort();
        for (k, (s, p, ty)) in w.into_iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            let _ = write!(out, "{{\"s\":{},\"type\":\"{ty}\",\"path\":{}}}", quote(s), quote(p));
        }
        out.push_str("]}");
        Ok(out)
    }

    fn session(&self, s: &str) -> Result<SessionId, String> {
        self.by_name.get(s).copied().ok_or_else(|| format!("session '{}' was never connected", shown(s)))
    }

    /// (session name, path, type): sorted, this orders by session, then path, then type.
    fn event<'a>(&'a self, e: &'a WatchEvent) -> (&'a str, &'a str, &'static str) {
        let name = self.names.get(&e.session).map(String::as_str).unwrap_or("?");
        let ty = match e.kind {
            splitbrain_sim::zookeeper::watch::WatchEventType::NodeCreated => "NodeCreated",
            splitbrain_sim::zookeeper::watch::WatchEventType::NodeDeleted => "NodeDeleted",
            splitbrain_sim::zookeeper::watch::WatchEventType::NodeDataChanged => "NodeDataChanged",
            splitbrain_sim::zookeeper::watch::WatchEventType::NodeChildrenChanged => "NodeChildrenChanged",
        };
        (name, e.path.as_str(), ty)
    }

    fn result(&self, req: &ZkOp, result: ZkResult, out: &mut String) {
        match result {
            ZkResult::Error { code } | ZkResult::MultiFailed { code, .. } => {
                let _ = write!(out, ",\"error\":\"{}\"", code.name());
            }
            ZkResult::Created { path } => {
                let _ = write!(out, ",\"ok\":true,\"path\":{}", quote(&path));
            }
            ZkResult::Written { stat } => {
                let _ = write!(out, ",\"ok\":true,\"version\":{}", stat.version);
            }
            ZkResult::Data { data, stat } => {
                let ZkOp::GetDataPlain { path, .. } = req else { unreachable!("only get reads data") };
                let _ = write!(
                    out,
                    ",\"ok\":true,\"version\":{},\"data\":{},\"ephemeral\":{},\"num_children\":{}",
                    stat.version,
                    quote(&data.to_json()),
                    stat.ephemeral_owner.is_some(),
                    self.tree.children(path).len()
                );
            }
            ZkResult::Exists { stat: Some(stat) } => {
                let _ = write!(out, ",\"ok\":true,\"exists\":true,\"version\":{}", stat.version);
            }
            ZkResult::Exists { stat: None } => out.push_str(",\"ok\":true,\"exists\":false"),
            ZkResult::Children { names } => {
                let names: Vec<String> = names.iter().map(|n| quote(n)).collect();
                let _ = write!(out, ",\"ok\":true,\"children\":[{}]", names.join(","));
            }
            ZkResult::Deleted | ZkResult::MultiOk | ZkResult::DataMany { .. } => out.push_str(",\"ok\":true"),
        }
    }
}
