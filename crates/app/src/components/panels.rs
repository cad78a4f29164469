//! The panels beside the graph: each broker's controller context against ZooKeeper, the
//! partition table, the consumer group, the ZooKeeper tree and the alerts.
use crate::text::metadata_words;
use splitbrain_sim::view::{
    CacheRow, ConsumerView, ControllerView, LeaderView, MetadataStore, PartitionView, ZnodeView,
};
use splitbrain_sim::TopicPartition;
use std::rc::Rc;
use web_sys::HtmlInputElement;
use yew::prelude::*;

fn isr(v: &[i32]) -> String {
    format!("[{}]", v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(","))
}

fn leader_text(l: i32) -> Html {
    if l < 0 {
        html! { <span class="leaderless-mark" title="no leader (LeaderAndIsr.NoLeader)">{"⚠ -1 (none)"}</span> }
    } else {
        html! { <>{l}</> }
    }
}

/// Props for the controller diff.
#[derive(Properties, PartialEq)]
pub struct DiffProps {
    /// Every broker's controller component.
    pub controllers: Rc<Vec<ControllerView>>,
    /// The consumer group's coordinator partition (always shown).
    #[prop_or_default]
    pub watched: Option<TopicPartition>,
    /// `/controller` in ZooKeeper.
    pub zk_controller: Option<i32>,
}

fn cell_cmp(label: &str, cache: String, zk: String) -> Html {
    let differs = cache != zk;
    html! {
        <>
            <td class={classes!("c", differs.then_some("differs"))} data-col={format!("cache-{label}")}>{cache.clone()}</td>
            <td class={classes!("z", differs.then_some("differs"))} data-col={format!("zk-{label}")}>
                {zk}{ if differs { html!{ <span class="neq" title="differs from the cache">{" ≠"}</span> } } else { html!{} } }
            </td>
        </>
    }
}

fn lv(l: &Option<LeaderView>) -> (String, String, String, String) {
    match l {
        Some(v) => (
            if v.leader < 0 { "-1 ⚠".into() } else { v.leader.to_string() },
            v.leader_epoch.to_string(),
            isr(&v.isr),
            v.zk_version.to_string(),
        ),
        None => ("—".into(), "—".into(), "—".into(), "—".into()),
    }
}

fn diff_row(r: &CacheRow, watch: Option<&TopicPartition>) -> Html {
    let name = r.tp.to_string();
    let is_watch = watch == Some(&r.tp);
    let (cl, ce, ci, cv) = lv(&r.cache);
    let (zl, ze, zi, zv) = lv(&r.zk);
    html! {
        <tr key={name.clone()} class={classes!(r.differs.then_some("row-differs"), is_watch.then_some("watch"))} data-partition={name.clone()}>
            <th scope="row">{format!("p{}", r.tp.partition)}{ if is_watch { html!{<span class="watch-mark" title="the consumer group's coordinator partition">{" ★"}</span>} } else { html!{} } }</th>
            {cell_cmp("leader", cl, zl)}
            {cell_cmp("epoch", ce, ze)}
            {cell_cmp("isr", ci, zi)}
            {cell_cmp("version", cv, zv)}
        </tr>
    }
}

/// Each broker's in-memory controller context next to ZooKeeper — the heart of the incident.
#[function_component(ControllerContextDiff)]
pub fn controller_context_diff(props: &DiffProps) -> Html {
    let show_all = use_state(|| false);
    let toggle = {
        let show_all = show_all.clone();
        Callback::from(move |_| show_all.set(!*show_all))
    };
    let watch = props.watched.as_ref();
    // Brokers with no context and no controller role are summarised in one line.
    let idle: Vec<i32> =
        props.controllers.iter().filter(|c| !c.active && c.rows.is_empty()).map(|c| c.broker).collect();
    let idle_line = if idle.is_empty() {
        html! {}
    } else {
        let active_id =
            props.controllers.iter().find(|c| idle.contains(&c.broker)).map(|c| c.active_controller_id).unwrap_or(-1);
        html! {
            <section class="ctx idle" data-testid="ctx-idle">
                <h3>{if idle.len() == 1 { format!("broker {} ", idle[0]) } else { format!("brokers {} ", idle.iter().map(|b| b.to_string()).collect::<Vec<_>>().join(", ")) }}
                    <span class="role">{format!("not controller; no controller context loaded (they follow activeControllerId {active_id})")}</span></h3>
            </section>
        }
    };
    let cards = props.controllers.iter().filter(|c| c.active || !c.rows.is_empty()).map(|c| {
        let loaded = !c.rows.is_empty();
        let role = if c.active {
            if props.zk_controller == Some(c.broker) {
                "active controller (holds /controller)".to_string()
            } else {
                format!("believes it is controller, but /controller is {} — zombie", props.zk_controller.map(|b| format!("broker {b}")).unwrap_or_else(|| "empty".into()))
            }
        } else if loaded {
            "resigned; context left over".into()
        } else {
            "not controller; no context loaded".into()
        };
        let rows: Vec<&CacheRow> = c
            .rows
            .iter()
            .filter(|r| *show_all || r.differs || Some(&r.tp) == watch)
            .collect();
        let hidden = c.rows.len() - rows.len();
        html! {
            <section key={c.broker} class={classes!("ctx", c.active.then_some("active"), (c.differing > 0).then_some("has-diff"))} data-broker={c.broker.to_string()} data-testid={format!("ctx-b{}", c.broker)}>
                <h3>
                    {format!("broker {} ", c.broker)}
                    <span class="role">{role}</span>
                </h3>
                <p class="ctx-meta">
                    {format!("context epoch {} · live brokers {} · activeControllerId {}", c.epoch, isr(&c.live_brokers), c.active_controller_id)}
                    if c.differing > 0 {
                        <strong class="diff-count">{format!(" · {} partition(s) differ from ZooKeeper", c.differing)}</strong>
                    } else if loaded {
                        <span class="same">{" · cache matches ZooKeeper"}</span>
                    }
                </p>
                if loaded {
                    <div class="table-wrap">
                    <table class="diff">
                        <thead>
                            <tr><th rowspan="2" scope="col">{"partition"}</th><th colspan="2">{"leader"}</th><th colspan="2">{"leader_epoch"}</th><th colspan="2">{"ISR"}</th><th colspan="2">{"zkVersion"}</th></tr>
                            <tr><th class="c">{"cache"}</th><th class="z">{"ZK"}</th><th class="c">{"cache"}</th><th class="z">{"ZK"}</th><th class="c">{"cache"}</th><th class="z">{"ZK"}</th><th class="c">{"cache"}</th><th class="z">{"ZK"}</th></tr>
                        </thead>
                        <tbody>{ for rows.iter().map(|r| diff_row(r, watch)) }</tbody>
                    </table>
                    </div>
                    if hidden > 0 {
                        <p class="dim small">{format!("{hidden} matching partition(s) hidden.")}</p>
                    }
                }
            </section>
        }
    });
    html! {
        <section class="panel" aria-label="Controller context vs ZooKeeper" data-testid="controller-diff">
            <div class="panel-head">
                <h2>{"Controller context vs ZooKeeper"}</h2>
                <button class="small-btn" onclick={toggle} aria-pressed={show_all.to_string()}>{if *show_all { "Only differences" } else { "Show all partitions" }}</button>
            </div>
            <p class="hint">{"Each broker's in-memory partitionLeadershipInfo (cache) beside the state znode in ZooKeeper. A controller writes with the zkVersion it cached: a stale cache means its writes fail or overwrite newer state."}</p>
            { for cards }
            {idle_line}
        </section>
    }
}

/// Props for the partition table.
#[derive(Properties, PartialEq)]
pub struct PartitionProps {
    /// Rows.
    pub partitions: Rc<Vec<PartitionView>>,
    /// The consumer group's coordinator partition.
    #[prop_or_default]
    pub watched: Option<TopicPartition>,
    /// The group it coordinates.
    #[prop_or_default]
    pub watched_group: Option<String>,
    /// Where the rows are recorded: ZooKeeper, or (KRaft) the quorum's committed metadata.
    #[prop_or_default]
    pub metadata: MetadataStore,
}

/// Every partition as ZooKeeper holds it; filterable, leaderless rows marked.
#[function_component(PartitionTable)]
pub fn partition_table(props: &PartitionProps) -> Html {
    let filter = use_state(String::new);
    let only_leaderless = use_state(|| false);
    let oninput = {
        let filter = filter.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<HtmlInputElement>().value();
            filter.set(v);
        })
    };
    let onchange = {
        let ol = only_leaderless.clone();
        Callback::from(move |e: Event| ol.set(e.target_unchecked_into::<HtmlInputElement>().checked()))
    };
    let f = filter.trim().to_lowercase();
    let leaderless = props.partitions.iter().filter(|p| p.leader < 0).count();
    let rows: Vec<&PartitionView> = props
        .partitions
        .iter()
        .filter(|p| !*only_leaderless || p.leader < 0)
        .filter(|p| {
            if f.is_empty() {
                return true;
            }
            let name = format!("{}-{}", p.topic, p.partition);
            // "3" matches partition 3 exactly; anything else is a substring of the name or leader.
            if let Ok(n) = f.parse::<u32>() {
                return p.partition == n;
            }
            name.to_lowercase().contains(&f) || (f == "-1" && p.leader < 0)
        })
        .collect();
    let watch = props.watched.as_ref();
    // With a single topic, rows are named by partition number and the topic goes in the title.
    let single_topic =
        props.partitions.first().map(|f| f.topic.clone()).filter(|t| props.partitions.iter().all(|p| &p.topic == t));
    let source = match props.metadata {
        MetadataStore::ZooKeeper => "ZooKeeper state",
        MetadataStore::MetadataLog => "committed metadata",
    };
    let watch_title = format!("{}'s coordinator partition", props.watched_group.as_deref().unwrap_or("the group"));
    let title = match &single_topic {
        Some(t) => format!("Partitions of {t} ({source})"),
        None => format!("Partitions ({source})"),
    };
    html! {
        <section class="panel" aria-label="Partitions" data-testid="partition-table">
            <div class="panel-head">
                <h2>{title}</h2>
                <span class={classes!("count", (leaderless > 0).then_some("bad"))} data-testid="leaderless-count">
                    {format!("{} of {} without a leader", leaderless, props.partitions.len())}
                </span>
            </div>
            <div class="filters">
                <label>{"Filter "}<input type="search" placeholder="partition number or name" value={(*filter).clone()} {oninput} aria-label="Filter partitions" /></label>
                <label><input type="checkbox" checked={*only_leaderless} {onchange} />{" only leader -1"}</label>
            </div>
            <div class="scroll-table" tabindex="0" aria-label="Partition table, scrollable">
                <table class="partitions">
                    <thead><tr>
                        <th scope="col">{"partition"}</th><th scope="col">{"leader"}</th><th scope="col">{"ISR"}</th>
                        <th scope="col">{"replicas"}</th><th scope="col" title="leader_epoch">{"epoch"}</th><th scope="col" title="controller_epoch of the last write">{"ctrl ep."}</th><th scope="col" title="znode version">{"zkVer"}</th>
                    </tr></thead>
                    <tbody>
                    { for rows.iter().map(|p| {
                        let name = format!("{}-{}", p.topic, p.partition);
                        let is_watch = watch.is_some_and(|w| p.is(w));
                        html! {
                            <tr key={name.clone()} data-partition={name.clone()} data-leader={p.leader.to_string()}
                                class={classes!((p.leader < 0).then_some("leaderless"), is_watch.then_some("watch"))}>
                                <th scope="row" title={name.clone()}>{if single_topic.is_some() { format!("p{}", p.partition) } else { name.clone() }}{ if is_watch { html!{<span class="watch-mark" title={watch_title.clone()}>{" ★ coordinator of the group"}</span>} } else { html!{} } }</th>
                                <td class="leader">{leader_text(p.leader)}</td>
                                <td>{isr(&p.isr)}</td>
                                <td>{isr(&p.replicas)}</td>
                                <td>{p.leader_epoch}</td>
                                <td>{p.controller_epoch}</td>
                                <td>{p.zk_version}</td>
                            </tr>
                        }
                    }) }
                    </tbody>
                </table>
                if rows.is_empty() { <p class="dim">{"No partition matches the filter."}</p> }
            </div>
        </section>
    }
}

/// Props for the consumer panel.
#[derive(Properties, PartialEq)]
pub struct ConsumerProps {
    /// Consumers.
    pub consumers: Rc<Vec<ConsumerView>>,
    /// Partitions (to show the coordinator partition's leader).
    pub partitions: Rc<Vec<PartitionView>>,
    /// Where that leader is recorded.
    #[prop_or_default]
    pub metadata: MetadataStore,
}

/// The consumer group: id, coordinator partition with the hash computation, status.
#[function_component(ConsumerPanel)]
pub fn consumer_panel(props: &ConsumerProps) -> Html {
    use splitbrain_sim::consumer::ConsumerStatus as CS;
    html! {
        <section class="panel" aria-label="Consumer group" data-testid="consumer-panel">
            <h2>{"Consumer group"}</h2>
            { for props.consumers.iter().map(|c| {
                let tp = c.coordinator_tp();
                let p = props.partitions.iter().find(|p| p.is(&tp));
                let stuck = c.status == CS::CoordinatorNotAvailable;
                let (status, class) = match c.status {
                    CS::Stable => (format!("joined: stable member, coordinator broker {}", c.coordinator.map(|b| b.to_string()).unwrap_or("?".into())), "ok"),
                    CS::CoordinatorNotAvailable => (format!("retrying FindCoordinator: COORDINATOR_NOT_AVAILABLE (attempt {})", c.attempts), "bad"),
                    CS::Joining => (format!("joining the group at broker {}", c.coordinator.map(|b| b.to_string()).unwrap_or("?".into())), "warn"),
                    CS::Discovering => ("sending FindCoordinator".to_string(), "warn"),
                };
                html! {
                    <div key={c.id} class={classes!("consumer", class)} data-testid={format!("consumer-c{}", c.id)} data-status={c.status.name()}>
                        <p><span class="k">{"group.id"}</span>{" "}<code>{format!("\"{}\"", c.group)}</code>{format!(" (client c{})", c.id)}</p>
                        <p class="calc" data-testid="hash-calc">
                            <code>{format!("\"{}\".hashCode() = {}", c.group, c.hash_code)}</code><br/>
                            <code>{format!("abs({}) % {} = {}", c.hash_code, c.partitions, c.coordinator_partition)}</code>
                            {" → coordinator partition "}<strong>{tp.to_string()}</strong>
                        </p>
                        if let Some(p) = p {
                            <p>{format!("Its leader in {}: ", metadata_words(props.metadata))}{leader_text(p.leader)}{format!(" · ISR {} · leader_epoch {}", isr(&p.isr), p.leader_epoch)}
                            if p.leader < 0 { <br/><span class="explain">{"No leader means no broker hosts this group's coordinator: FindCoordinator answers COORDINATOR_NOT_AVAILABLE."}</span> }
                            </p>
                        }
                        <p class={classes!("status", class)} role="status" data-testid="consumer-status">
                            <span class="k">{"status "}</span>{ if stuck { "✕ " } else if class == "ok" { "✓ " } else { "… " } }{status}
                        </p>
                    </div>
                }
            }) }
            if props.consumers.is_empty() { <p class="dim">{"This scenario has no consumer."}</p> }
        </section>
    }
}

/// Props for the alerts.
#[derive(Properties, PartialEq)]
pub struct AlertsProps {
    /// Alerts.
    pub alerts: Rc<Vec<splitbrain_sim::Alert>>,
    /// The partition the story watches (its leader -1 alert is always shown).
    pub watched: Option<splitbrain_sim::TopicPartition>,
}

/// Alerts from the core, live.
#[function_component(Alerts)]
pub fn alerts(props: &AlertsProps) -> Html {
    use splitbrain_sim::AlertKind as K;
    let mut shown: Vec<&splitbrain_sim::Alert> = props.alerts.iter().collect();
    splitbrain_sim::sorted::sort_by_key(&mut shown, |a| a.kind);
    // Many leaderless partitions: show the first few and a count.
    let mut leaderless: usize = 0;
    let items: Vec<Html> = shown
        .iter()
        .filter(|a| {
            if a.kind == K::LeaderlessWithLiveIsr {
                leaderless += 1;
                leaderless <= 3
                    || matches!((&a.subject, &props.watched), (splitbrain_sim::alerts::Subject::Partition(p), Some(w)) if p == w)
            } else {
                true
            }
        })
        .map(|a| {
            let (icon, cls) = match a.kind {
                K::MultipleControllers => ("⚠ split brain", "a-split"),
                K::LeaderlessWithLiveIsr => ("⚠ leader -1", "a-leaderless"),
                K::CacheDivergence => ("≠ stale cache", "a-cache"),
                K::NoCoordinator => ("✕ no coordinator", "a-coord"),
            };
            html! { <li key={a.key.clone()} class={cls}><span class="tag">{icon}</span>{" "}{a.message.clone()}</li> }
        })
        .collect();
    let more = leaderless.saturating_sub(3);
    html! {
        <section class="panel" aria-label="Alerts" data-testid="alerts" aria-live="polite">
            <h2>{format!("Alerts ({})", props.alerts.len())}</h2>
            if props.alerts.is_empty() {
                <p class="ok-text">{"✓ No property violated at this step."}</p>
            } else {
                <ul class="alerts">{ for items }</ul>
                if more > 0 { <p class="dim small">{format!("…and more leaderless partitions ({leaderless} in all; see the partition table).")}</p> }
            }
        </section>
    }
}

/// Props for the ZooKeeper tree.
#[derive(Properties, PartialEq)]
pub struct ZkProps {
    /// Znodes.
    pub znodes: Rc<Vec<ZnodeView>>,
    /// The partition whose znodes are always shown.
    #[prop_or_default]
    pub watched: Option<TopicPartition>,
}

/// The znode tree with data, versions and ephemeral owners.
#[function_component(ZkTree)]
pub fn zk_tree(props: &ZkProps) -> Html {
    let show_all = use_state(|| false);
    let toggle = {
        let s = show_all.clone();
        Callback::from(move |_| s.set(!*s))
    };
    let watched = |z: &ZnodeView| z.partition.is_some() && z.partition == props.watched;
    let hidden = props.znodes.iter().filter(|z| z.partition.is_some()).count();
    let rows = props.znodes.iter().filter(|z| *show_all || z.partition.is_none() || watched(z));
    html! {
        <section class="panel" aria-label="ZooKeeper tree" data-testid="zk-tree">
            <div class="panel-head">
                <h2>{"ZooKeeper"}</h2>
                <button class="small-btn" onclick={toggle} aria-pressed={show_all.to_string()}>{if *show_all { "Hide partition znodes".to_string() } else { format!("Show all {hidden} partition znodes") }}</button>
            </div>
            if props.znodes.is_empty() { <p class="dim">{"No ZooKeeper in this mode: the KRaft quorum holds the metadata."}</p> }
            <ul class="znodes">
            { for rows.map(|z| {
                let depth = z.path.matches('/').count().saturating_sub(1);
                let name = z.path.rsplit('/').next().unwrap_or("").to_string();
                let watch = watched(z);
                html! {
                    <li key={z.path.clone()} class={classes!(watch.then_some("watch"), z.ephemeral_owner.is_some().then_some("ephemeral"))} style={format!("padding-left: {}em", depth as f32 * 0.9)} data-path={z.path.clone()}>
                        <span class="zpath" title={z.path.clone()}>{format!("/{name}")}</span>
                        if z.ephemeral_owner.is_some() { <span class="eph" title="ephemeral: deleted when its session expires">{" (ephemeral, owner "}{z.ephemeral_owner.clone().unwrap_or_default()}{")"}</span> }
                        <span class="zver">{format!(" v{}", z.version)}</span>
                        if !z.data.is_empty() && z.data != "null" { <code class="zdata">{z.data.clone()}</code> }
                    </li>
                }
            }) }
            </ul>
        </section>
    }
}
