//! The picture: brokers on a ring around ZooKeeper, the consumer on the right, a link for every
//! pair that can talk, messages moving along their links, and a stroke overlay that cuts (or
//! heals) every link a drag crosses.
use crate::components::stroke::{Stroke, StrokeBus};
use crate::geometry::{client_to_user, crossed_links, f1, nearest_link, Layout, Pt};
use crate::model::CutMode;
use crate::text::{fmt_time, link_words};
use splitbrain_sim::consumer::ConsumerStatus;
use splitbrain_sim::message::Category;
use splitbrain_sim::view::{LinkView, MessageState, MessageView, NodeStatus, NodeView, View, ZkRole};
use splitbrain_sim::zk_client::ConnState;
use splitbrain_sim::{Command, Direction, NodeId};
use std::rc::Rc;
use web_sys::{Element, KeyboardEvent, PointerEvent};
use yew::prelude::*;

/// Props.
#[derive(Properties, PartialEq, Clone)]
pub struct GraphProps {
    /// What to draw.
    pub view: Rc<View>,
    /// What drags cut.
    pub cut_mode: CutMode,
    /// Commands from gestures.
    pub on_commands: Callback<Vec<Command>>,
}

/// The commands a gesture over these links means: heal what is cut, cut what is up.
pub fn toggle_commands(links: &[&LinkView], mode: CutMode) -> Vec<Command> {
    links
        .iter()
        .map(|l| {
            if l.a_to_b && l.b_to_a {
                Command::Cut { a: l.a, b: l.b, dir: mode.direction() }
            } else {
                Command::Heal { a: l.a, b: l.b, dir: Direction::Both }
            }
        })
        .collect()
}

/// State of a link in words.
pub fn link_state_words(l: &LinkView) -> String {
    match (l.a_to_b, l.b_to_a) {
        (true, true) => "up".into(),
        (false, false) => "cut both ways".into(),
        (false, true) => format!("one-way cut: {} → {} dropped", l.a, l.b),
        (true, false) => format!("one-way cut: {} → {} dropped", l.b, l.a),
    }
}

fn short_session(s: NodeStatus) -> (&'static str, &'static str) {
    match s {
        NodeStatus::Session(ConnState::Connected) => ("connected", "ok"),
        NodeStatus::Session(ConnState::Disconnected) => ("disconnected", "warn"),
        NodeStatus::Session(ConnState::Expired) => ("EXPIRED", "bad"),
        NodeStatus::Session(ConnState::Connecting) => ("connecting", "warn"),
        NodeStatus::Down => ("process down", "bad"),
        _ => ("?", "warn"),
    }
}

fn message_pos(m: &MessageView, now: u64, seg: (Pt, Pt)) -> Pt {
    let (p, q) = seg;
    match m.state {
        MessageState::Delivered => q,
        MessageState::Dropped => p.lerp(q, 0.5),
        MessageState::InFlight => {
            let span = m.deliver_ms.saturating_sub(m.sent_ms).max(1) as f64;
            let t = (now.saturating_sub(m.sent_ms) as f64 / span).clamp(0.0, 1.0);
            // Keep a message just off the sender while it is leaving.
            p.lerp(q, 0.04 + 0.92 * t)
        }
    }
}

fn category_class(c: Category) -> &'static str {
    match c {
        Category::Zk => "m-zk",
        Category::Watch => "m-watch",
        Category::Control => "m-control",
        Category::Client => "m-client",
        Category::Quorum => "m-other",
    }
}

/// The SVG graph.
#[function_component(Graph)]
pub fn graph(props: &GraphProps) -> Html {
    let view = &props.view;
    let brokers: Vec<i32> = view.nodes.iter().filter_map(|n| n.id.broker()).collect();
    let clients: Vec<u32> =
        view.nodes.iter().filter_map(|n| if let NodeId::Client(c) = n.id { Some(c) } else { None }).collect();
    let voters: Vec<u32> =
        view.nodes.iter().filter_map(|n| if let NodeId::Voter(v) = n.id { Some(v) } else { None }).collect();
    let servers: Vec<NodeId> = view.nodes.iter().map(|n| n.id).filter(|id| id.is_zk()).collect();
    let narrow = crate::hooks::narrow::use_narrow();
    let layout = use_memo((brokers.clone(), clients.clone(), voters, servers, narrow), |(b, c, v, z, narrow)| {
        let z: &[NodeId] = if z.is_empty() { &[NodeId::ZK] } else { z };
        if *narrow {
            Layout::tall(b, c, v, z)
        } else {
            Layout::with_ensemble(b, c, v, z)
        }
    });
    // Each broker's current ZooKeeper server (an ensemble only): its other server links are
    // drawn faint (they exist, and can be cut, but carry nothing until the client moves).
    let current: Vec<(NodeId, NodeId)> =
        view.nodes.iter().filter_map(|n| n.zk_server.filter(|z| *z != NodeId::ZK).map(|z| (n.id, z))).collect();
    let standby = |a: NodeId, b: NodeId| -> bool {
        let (broker, server) = if a.is_zk() { (b, a) } else { (a, b) };
        server.is_zk() && broker.broker().is_some() && current.iter().any(|(n, z)| *n == broker && *z != server)
    };
    let stroke = use_memo((), |_| StrokeBus::default());
    crate::debug::count_render("graph");
    let svg_ref = use_node_ref();

    let segs: Rc<Vec<(LinkView, (Pt, Pt))>> =
        Rc::new(view.links.iter().filter_map(|l| layout.link_segment(l.a, l.b).map(|s| (l.clone(), s))).collect());

    let vb = layout.view_box();
    let to_user = {
        let svg_ref = svg_ref.clone();
        move |e: &PointerEvent| -> Pt {
            match svg_ref.cast::<Element>() {
                Some(el) => {
                    let r = el.get_bounding_client_rect();
                    client_to_user(
                        e.client_x() as f64 - r.left(),
                        e.client_y() as f64 - r.top(),
                        r.width(),
                        r.height(),
                        vb,
                    )
                }
                None => Pt::new(0.0, 0.0),
            }
        }
    };

    // The stroke is its own component ([`Stroke`]): feeding it points redraws only the polyline.
    let onpointerdown = {
        let stroke = stroke.clone();
        let to_user = to_user.clone();
        let svg_ref = svg_ref.clone();
        Callback::from(move |e: PointerEvent| {
            if e.button() != 0 {
                return;
            }
            // Capture on the <svg> itself (Yew delegates events, so current_target is the root).
            if let Some(t) = svg_ref.cast::<Element>() {
                let _ = t.set_pointer_capture(e.pointer_id());
            }
            stroke.begin(to_user(&e));
        })
    };
    let onpointermove = {
        let stroke = stroke.clone();
        let to_user = to_user.clone();
        Callback::from(move |e: PointerEvent| stroke.extend(to_user(&e)))
    };
    let finish = {
        let stroke = stroke.clone();
        let segs = segs.clone();
        let on_commands = props.on_commands.clone();
        let mode = props.cut_mode;
        let to_user = to_user.clone();
        move |e: PointerEvent, cancelled: bool| {
            let Some(pts) = stroke.finish(to_user(&e)) else { return };
            if cancelled {
                return;
            }
            let lines: Vec<(Pt, Pt)> = segs.iter().map(|(_, s)| *s).collect();
            let length: f64 = pts.windows(2).map(|w| w[0].dist(w[1])).sum();
            let hit: Vec<usize> = if length < 6.0 {
                // A click or tap: the link under the pointer.
                nearest_link(pts[0], &lines, 9.0).into_iter().collect()
            } else {
                crossed_links(&pts, &lines)
            };
            let links: Vec<&LinkView> = hit.iter().map(|i| &segs[*i].0).collect();
            let cmds = toggle_commands(&links, mode);
            if !cmds.is_empty() {
                on_commands.emit(cmds);
            }
        }
    };
    let onpointerup = {
        let finish = finish.clone();
        Callback::from(move |e: PointerEvent| finish(e, false))
    };
    let onpointercancel = Callback::from(move |e: PointerEvent| finish(e, true));

    let now = view.time_ms;
    let acting = view.acting_controllers.len();

    // Links, drawn first (under the nodes).
    let link_html = segs.iter().map(|(l, (p, q))| {
        let state = link_state_words(l);
        let both_up = l.a_to_b && l.b_to_a;
        let none_up = !l.a_to_b && !l.b_to_a;
        let class = classes!("link", if both_up { "up" } else if none_up { "cut" } else { "oneway" },
            if matches!(l.a, NodeId::Zk(_)) || matches!(l.b, NodeId::Zk(_)) { Some("zk-link") } else { None },
            if l.a.is_zk() && l.b.is_zk() { Some("zk-peer") } else { None },
            if standby(l.a, l.b) { Some("standby") } else { None },
            if matches!(l.a, NodeId::Client(_)) || matches!(l.b, NodeId::Client(_)) { Some("client-link") } else { None });
        let mid = p.lerp(*q, 0.5);
        let name = format!("{}-{}", l.a, l.b);
        let aria = format!(
            "link {}, {}; press Enter to {}",
            link_words(l.a, l.b),
            state,
            if both_up { "cut it" } else { "heal it" }
        );
        let cmd = toggle_commands(&[l], props.cut_mode);
        let onkeydown = {
            let on_commands = props.on_commands.clone();
            Callback::from(move |e: KeyboardEvent| {
                if e.key() == "Enter" || e.key() == " " {
                    e.prevent_default();
                    on_commands.emit(cmd.clone());
                }
            })
        };
        // Direction of the dropped half of a one-way cut: an arrow pointing the way messages die.
        let oneway = if !both_up && !none_up {
            let (from, to) = if !l.a_to_b { (*p, *q) } else { (*q, *p) };
            let (dx, dy) = (to.x - from.x, to.y - from.y);
            let len = (dx * dx + dy * dy).sqrt().max(1.0);
            let (ux, uy) = (dx / len, dy / len);
            let tip = Pt::new(mid.x + ux * 9.0, mid.y + uy * 9.0);
            let b1 = Pt::new(mid.x - ux * 7.0 - uy * 7.0, mid.y - uy * 7.0 + ux * 7.0);
            let b2 = Pt::new(mid.x - ux * 7.0 + uy * 7.0, mid.y - uy * 7.0 - ux * 7.0);
            html! { <path class="oneway-arrow" d={format!("M{},{} L{},{} L{},{} Z", f1(tip.x), f1(tip.y), f1(b1.x), f1(b1.y), f1(b2.x), f1(b2.y))} /> }
        } else {
            html! {}
        };
        let gap = if both_up {
            html! { <line class="link-line" x1={fmt(p.x)} y1={fmt(p.y)} x2={fmt(q.x)} y2={fmt(q.y)} /> }
        } else {
            // Broken: two halves with a gap and a cross at the cut.
            let a_end = p.lerp(*q, 0.44);
            let b_start = p.lerp(*q, 0.56);
            html! {
                <>
                    <line class="link-line" x1={fmt(p.x)} y1={fmt(p.y)} x2={fmt(a_end.x)} y2={fmt(a_end.y)} />
                    <line class="link-line" x1={fmt(b_start.x)} y1={fmt(b_start.y)} x2={fmt(q.x)} y2={fmt(q.y)} />
                    if none_up {
                        <g class="cut-mark" transform={format!("translate({},{})", f1(mid.x), f1(mid.y))}>
                            <line x1="-6" y1="-6" x2="6" y2="6" /><line x1="-6" y1="6" x2="6" y2="-6" />
                        </g>
                    }
                    {oneway}
                </>
            }
        };
        html! {
            <g key={name.clone()} class={class} data-link={name.clone()} data-state={if both_up { "up" } else if none_up { "cut" } else { "oneway" }}>
                {gap}
                <line class="link-hit" x1={fmt(p.x)} y1={fmt(p.y)} x2={fmt(q.x)} y2={fmt(q.y)}
                    tabindex="0" role="button" aria-label={aria.clone()} data-testid={format!("link-{name}")} onkeydown={onkeydown}>
                    <title>{format!("{} — {}. Click or drag across to {}.", link_words(l.a, l.b), state, if both_up { "cut" } else { "heal" })}</title>
                </line>
            </g>
        }
    });

    let node_html = view
        .nodes
        .iter()
        .filter_map(|n| layout.get(n.id).map(|b| (n, *b)))
        .map(|(n, b)| render_node(n, b.c, b.hw, b.hh, view, acting));

    // An ensemble: /controller and /controller_epoch under the group (the leader's replica).
    let caption = match layout.zk_caption {
        Some(b) => {
            let epoch = view.nodes.iter().find(|n| n.id.is_zk()).map(|n| n.controller_epoch).unwrap_or(0);
            let leader = view.zk_leader.map(|z| format!("leader {z}")).unwrap_or_else(|| "no leader: electing".into());
            html! {
                <g class="zk-caption" transform={format!("translate({},{})", f1(b.c.x), f1(b.c.y))} data-testid="zk-caption">
                    <title>{format!("ZooKeeper ensemble, {leader}: /controller and /controller_epoch as the leader's replica holds them")}</title>
                    <text class="line" y="-2" text-anchor="middle">{zk_controller_words(view)}</text>
                    <text class="line dim" y="11" text-anchor="middle">{format!("controller_epoch {epoch}")}</text>
                </g>
            }
        }
        None => html! {},
    };

    let seg_of = |from: NodeId, to: NodeId| -> Option<(Pt, Pt)> { layout.link_segment(from, to) };
    let show_labels = false;
    let msg_html = view.messages.iter().filter_map(|m| seg_of(m.from, m.to).map(|s| (m, s))).map(|(m, s)| {
        let p = message_pos(m, now, s);
        let class = classes!("msg", category_class(m.category), m.state.name());
        html! {
            <g key={format!("m{}", m.id)} class={class} style={format!("transform: translate({}px, {}px)", f1(p.x), f1(p.y))}>
                <circle r="6" />
                if m.state == MessageState::Dropped { <text class="drop-x" y="4" text-anchor="middle">{"✕"}</text> }
                if show_labels || m.state == MessageState::Dropped {
                    <text class="msg-label" x="8" y="-6">{short_label(&m.label)}</text>
                }
                <title>{format!("{} → {}: {} ({})", m.from, m.to, m.label, m.state.name().replace('_', " "))}</title>
            </g>
        }
    });

    let many = brokers.len() >= 6;
    html! {
        <svg ref={svg_ref} class={classes!("graph", many.then_some("many"))} data-testid="graph" viewBox={format!("{} {} {} {}", f1(vb.x), f1(vb.y), f1(vb.w), f1(vb.h))}
            role="group" aria-label="Cluster graph: brokers, ZooKeeper and the consumer. Drag across links to cut or heal them."
            {onpointerdown} {onpointermove} {onpointerup} {onpointercancel}>
            <rect class="backdrop" x={fmt(vb.x)} y={fmt(vb.y)} width={fmt(vb.w)} height={fmt(vb.h)} />
            <g class="links">{ for link_html }</g>
            <g class="nodes">{ for node_html }{caption}</g>
            <g class="messages" aria-hidden="true">{ for msg_html }</g>
            <Stroke bus={stroke.clone()} />
        </svg>
    }
}

fn zk_controller_words(view: &View) -> String {
    view.zk_controller.map(|b| format!("/controller = broker {b}")).unwrap_or_else(|| "/controller: none".into())
}

fn fmt(v: f64) -> String {
    f1(v)
}

fn short_label(l: &str) -> String {
    short(l, 28)
}

fn short(l: &str, n: usize) -> String {
    let s: String = l.chars().take(n).collect();
    if l.chars().count() > n {
        format!("{s}…")
    } else {
        s
    }
}

fn render_node(n: &NodeView, c: Pt, hw: f64, hh: f64, view: &View, acting: usize) -> Html {
    let tr = format!("translate({},{})", f1(c.x), f1(c.y));
    let rect = |class: &'static str| {
        html! { <rect class={class} x={fmt(-hw)} y={fmt(-hh)} width={fmt(2.0 * hw)} height={fmt(2.0 * hh)} rx="9" /> }
    };
    let id = n.id.to_string();
    match n.id {
        // KRaft voters (mode `kraft`): drawn like the metadata store they replace.
        NodeId::Voter(v) => html! {
            <g key={id.clone()} class={if n.acting_controller { "node zk voter leader" } else { "node zk voter" }} transform={tr}
               data-node={id.clone()} data-testid={format!("node-{id}")} data-acting={n.acting_controller.to_string()}>
                <title>{format!("KRaft controller q{v}: {} in epoch {}", n.status.name(), n.controller_epoch)}</title>
                {rect("box")}
                <text class="title" y={fmt(-hh + 17.0)} text-anchor="middle">{format!("{}controller q{v}", if n.acting_controller { "♛ " } else { "" })}</text>
                <text class="line" y={fmt(-hh + 33.0)} text-anchor="middle">{format!("{} · epoch {}", n.status.name(), n.controller_epoch)}</text>
            </g>
        },
        // A server of an ensemble: its role; the leader is marked.
        NodeId::Zk(z) if z > 0 => {
            let sv = view.zk_servers.iter().find(|s| s.id == n.id);
            let role_kind = sv.map(|s| s.role).unwrap_or(ZkRole::Looking);
            let role = role_kind.name();
            let clients = sv.map(|s| s.clients.len()).unwrap_or(0);
            let head = match role_kind {
                ZkRole::Leader => format!("♛ {id} leader"),
                _ => format!("{id} {role}"),
            };
            let tip = format!(
                "ZooKeeper server {id}: {role}{}; zxid 0x{:x}; clients: {}",
                match sv.and_then(|s| s.leader) {
                    Some(l) if role_kind == ZkRole::Follower => format!(" of {l}"),
                    _ => String::new(),
                },
                sv.map(|s| s.zxid).unwrap_or(0),
                sv.filter(|s| !s.clients.is_empty())
                    .map(|s| s.clients.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", "))
                    .unwrap_or_else(|| "none".into())
            );
            html! {
                <g key={id.clone()} class={classes!("node", "zk", "zk-server", role.to_string())} transform={tr}
                   data-node={id.clone()} data-testid={format!("node-{id}")} data-role={role.to_string()}
                   tabindex="0" role="img" aria-label={tip.clone()}>
                    <title>{tip}</title>
                    {rect("box")}
                    <text class="title" y={fmt(-hh + 15.0)} text-anchor="middle">{head}</text>
                    <text class="line" y={fmt(-hh + 29.0)} text-anchor="middle">
                        {format!("{clients} client{}", if clients == 1 { "" } else { "s" })}
                    </text>
                </g>
            }
        }
        NodeId::Zk(_) => {
            let ctl = zk_controller_words(view);
            html! {
                <g key={id.clone()} class="node zk" transform={tr} data-node={id.clone()} data-testid={format!("node-{id}")}>
                    {rect("box")}
                    <text class="title" y={fmt(-hh + 17.0)} text-anchor="middle">{"ZooKeeper"}</text>
                    <text class="line" y={fmt(-hh + 33.0)} text-anchor="middle">{ctl}</text>
                    <text class="line dim" y={fmt(-hh + 47.0)} text-anchor="middle">{format!("controller_epoch {}", n.controller_epoch)}</text>
                </g>
            }
        }
        NodeId::Broker(bid) => {
            let (sess, sess_class) = short_session(n.status);
            let leads_watch = n.leads_watched;
            let class = classes!(
                "node",
                "broker",
                if n.alive { None } else { Some("dead") },
                if n.acting_controller { Some("acting") } else { None },
                if n.acting_controller && acting > 1 { Some("split") } else { None },
                if n.zk_controller { Some("zkctl") } else { None }
            );
            let leads = if n.alive {
                format!("leads {} partition{}", n.leads.len(), if n.leads.len() == 1 { "" } else { "s" })
            } else {
                "leads nothing".into()
            };
            let title_text = if n.acting_controller { format!("♛ broker {bid}") } else { format!("broker {bid}") };
            let queue = n.controller_waiting.clone().map(|w| format!("waits: {w}"));
            let tip = format!(
                "broker {bid}: ZooKeeper session {}{}; {}{}; controller epoch seen {}; leads: {}{}",
                n.status.name(),
                n.session_id.as_ref().map(|s| format!(" ({s})")).unwrap_or_default(),
                if n.zk_controller { "holds /controller in ZooKeeper" } else { "does not hold /controller" },
                if n.acting_controller { ", believes it is the controller (isActive)" } else { "" },
                n.controller_epoch,
                if n.leads.is_empty() { "none".to_string() } else { n.leads.join(", ") },
                if n.controller_queue.is_empty() {
                    String::new()
                } else {
                    format!("; controller queue: {}", n.controller_queue.join(", "))
                }
            );
            html! {
                <g key={id.clone()} class={class} transform={tr} data-node={id.clone()} data-testid={format!("node-{id}")}
                   data-acting={n.acting_controller.to_string()} data-zk-controller={n.zk_controller.to_string()} data-session={n.status.name()}>
                    <title>{tip}</title>
                    if n.acting_controller { {rect("halo")} }
                    {rect("box")}
                    <text class="title" y={fmt(-hh + 17.0)} text-anchor="middle">{title_text}</text>
                    <g class={classes!("session", sess_class)}>
                        <circle cx={fmt(-hw + 12.0)} cy={fmt(-hh + 30.0)} r="4" />
                        <text class="line" x={fmt(-hw + 20.0)} y={fmt(-hh + 34.0)}>{if n.alive { format!("ZK {sess}") } else { sess.to_string() }}</text>
                    </g>
                    <text class="line" x={fmt(-hw + 8.0)} y={fmt(-hh + 49.0)}>
                        {leads}
                        if leads_watch { <tspan class="watch-mark">{" ★"}</tspan> }
                    </text>
                    if let Some(q) = queue {
                        <text class="line dim" x={fmt(-hw + 8.0)} y={fmt(-hh + 63.0)}>{short(&q, 19)}</text>
                    }
                    if n.zk_controller {
                        <g class="badge badge-zk" transform={format!("translate(0,{})", f1(-hh - 9.0))}>
                            <rect x="-49" y="-9" width="98" height="16" rx="8" />
                            <text y="3" text-anchor="middle">{"holds /controller"}</text>
                        </g>
                    }
                    if n.acting_controller {
                        <g class="badge badge-acting" transform={format!("translate(0,{})", f1(hh + 9.0))}>
                            <rect x="-52" y="-9" width="104" height="16" rx="8" />
                            <text y="3" text-anchor="middle">{if n.zk_controller { "acting controller" } else { "acting controller ⚠" }}</text>
                        </g>
                    }
                </g>
            }
        }
        NodeId::Client(cid) => {
            let cv = view.consumers.iter().find(|x| x.id == cid);
            let (status, sclass) = match cv.map(|c| c.status) {
                Some(ConsumerStatus::Stable) => ("stable ✓".to_string(), "ok"),
                Some(ConsumerStatus::CoordinatorNotAvailable) => ("COORDINATOR_NOT_AVAILABLE".to_string(), "bad"),
                Some(s) => (s.name().replace('_', " "), "warn"),
                None => ("?".into(), "warn"),
            };
            let coord = cv
                .map(|c| match c.coordinator {
                    Some(b) => format!("coordinator: broker {b}"),
                    None => format!("coordinator: none (p{})", c.coordinator_partition),
                })
                .unwrap_or_default();
            html! {
                <g key={id.clone()} class={classes!("node", "client", sclass)} transform={tr} data-node={id.clone()} data-testid={format!("node-{id}")}>
                    {rect("box")}
                    <text class="title" y={fmt(-hh + 16.0)} text-anchor="middle">{format!("consumer c{cid}")}</text>
                    <text class="line" y={fmt(-hh + 30.0)} text-anchor="middle">{cv.map(|c| c.group.clone()).unwrap_or_default()}</text>
                    <text class={classes!("line", "status", sclass)} y={fmt(-hh + 44.0)} text-anchor="middle">{status}</text>
                    <text class="line dim" y={fmt(-hh + 56.0)} text-anchor="middle">{coord}</text>
                </g>
            }
        }
    }
}

/// Props for the message list.
#[derive(Properties, PartialEq)]
pub struct InFlightProps {
    /// What to list.
    pub view: Rc<View>,
}

/// The messages on the wire at this step, in words (the dots on the graph carry no text).
#[function_component(InFlight)]
pub fn in_flight(props: &InFlightProps) -> Html {
    let v = &props.view;
    let mut msgs: Vec<&MessageView> = v.messages.iter().collect();
    // Dropped first (they explain a cut), then by arrival.
    splitbrain_sim::sorted::sort_by_key(&mut msgs, |m| {
        (m.state != MessageState::Dropped, m.state != MessageState::InFlight, m.deliver_ms)
    });
    let shown = 4;
    let more = msgs.len().saturating_sub(shown);
    html! {
        <ul class="inflight small" aria-label="Messages at this step" data-testid="in-flight">
            if msgs.is_empty() { <li class="dim">{"No message on the wire."}</li> }
            { for msgs.iter().take(shown).map(|m| {
                let (tag, cls) = match m.state {
                    MessageState::Dropped => ("✕ dropped", "dropped"),
                    MessageState::Delivered => ("✓ delivered", "delivered"),
                    MessageState::InFlight => ("→ in flight", "in_flight"),
                };
                html! {
                    <li key={m.id} class={classes!(cls, category_class(m.category))}>
                        <span class="dot"></span>
                        <span class="tag">{tag}</span>{" "}
                        <code>{format!("{} → {}", m.from, m.to)}</code>{" "}
                        {m.label.clone()}
                        if m.state == MessageState::InFlight { <span class="dim">{format!(" (arrives {})", fmt_time(m.deliver_ms))}</span> }
                    </li>
                }
            }) }
            if more > 0 { <li class="dim">{format!("…and {more} more")}</li> }
        </ul>
    }
}
