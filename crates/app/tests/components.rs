//! Component tests in headless Chromium: the real App is mounted into the page and driven through
//! DOM events (pointer and keyboard), then the DOM and the core's state are compared.
#![cfg(target_arch = "wasm32")]

use splitbrain_app::debug::{current_step, current_view};
use splitbrain_app::App;
use splitbrain_sim::NodeId;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, KeyboardEvent, KeyboardEventInit, PointerEvent, PointerEventInit};

wasm_bindgen_test_configure!(run_in_browser);

async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        web_sys::window().unwrap().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms).unwrap();
    });
    wasm_bindgen_futures::JsFuture::from(p).await.unwrap();
}

struct Mounted {
    root: Element,
    handle: Option<yew::AppHandle<App>>,
}

impl Mounted {
    async fn new() -> Mounted {
        let doc = web_sys::window().unwrap().document().unwrap();
        let root = doc.create_element("div").unwrap();
        root.set_attribute("style", "width: 1200px").unwrap();
        doc.body().unwrap().append_child(&root).unwrap();
        let handle = yew::Renderer::<App>::with_root(root.clone()).render();
        let m = Mounted { root, handle: Some(handle) };
        for _ in 0..100 {
            if m.q("[data-testid=graph]").is_some() {
                break;
            }
            sleep(20).await;
        }
        m
    }
    fn q(&self, sel: &str) -> Option<Element> {
        self.root.query_selector(sel).unwrap()
    }
    fn all(&self, sel: &str) -> Vec<Element> {
        let l = self.root.query_selector_all(sel).unwrap();
        (0..l.length()).map(|i| l.item(i).unwrap().dyn_into::<Element>().unwrap()).collect()
    }
    fn click(&self, sel: &str) {
        self.q(sel).unwrap_or_else(|| panic!("no element {sel}")).dyn_into::<HtmlElement>().unwrap().click();
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            h.destroy();
        }
        self.root.remove();
    }
}

fn pointer(target: &Element, kind: &str, x: f64, y: f64) {
    let init = PointerEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_client_x(x as i32);
    init.set_client_y(y as i32);
    init.set_pointer_id(1);
    init.set_button(0);
    init.set_is_primary(true);
    init.set_pointer_type("mouse");
    let ev = PointerEvent::new_with_event_init_dict(kind, &init).unwrap();
    target.dispatch_event(&ev).unwrap();
}

fn link_state(m: &Mounted, name: &str) -> String {
    m.q(&format!("[data-link='{name}']"))
        .unwrap_or_else(|| panic!("no link {name}"))
        .get_attribute("data-state")
        .unwrap()
}

#[wasm_bindgen_test]
async fn graph_renders_one_node_per_broker_plus_zookeeper_and_client() {
    let m = Mounted::new().await;
    let view = current_view().expect("the app registered its run");
    let brokers: Vec<i32> = view.nodes.iter().filter_map(|n| n.id.broker()).collect();
    assert_eq!(brokers, vec![1, 2, 3], "seed-incident has brokers 1, 2, 3");
    let nodes = m.all("svg.graph [data-node]");
    let ids: Vec<String> = nodes.iter().map(|n| n.get_attribute("data-node").unwrap()).collect();
    assert_eq!(ids.len(), brokers.len() + 4, "one node per broker, per ZooKeeper server and the consumer: {ids:?}");
    for id in ["zk1", "zk2", "zk3", "b1", "b2", "b3", "c1"] {
        assert!(ids.iter().any(|x| x == id), "node {id} missing from {ids:?}");
    }
    assert_eq!(m.all("svg.graph .node.broker").len(), 3);
    // A link for every pair that can talk: 3 broker–broker, 9 broker–server, 3 server–server,
    // 3 client–broker.
    assert_eq!(m.all("svg.graph [data-link]").len(), view.links.len());
    assert_eq!(view.links.len(), 18);
    // One leader among the servers, marked; each broker's link to a server it does not talk to is faint.
    assert_eq!(m.all("svg.graph .node.zk-server.leader").len(), 1);
    assert_eq!(m.all("svg.graph .link.standby").len(), 6);
    assert!(m
        .q("[data-testid=zk-caption]")
        .is_some_and(|c| c.text_content().unwrap_or_default().contains("/controller = broker 3")));
    // At step 0 broker 3 is the controller: it holds /controller and acts as controller.
    let b3 = m.q("[data-node=b3]").unwrap();
    assert_eq!(b3.get_attribute("data-acting").as_deref(), Some("true"));
    assert_eq!(b3.get_attribute("data-zk-controller").as_deref(), Some("true"));
    assert_eq!(m.q("[data-node=b1]").unwrap().get_attribute("data-acting").as_deref(), Some("false"));
}

#[wasm_bindgen_test]
async fn dragging_across_a_link_cuts_it_in_the_core_and_the_drawing_and_enter_heals_it() {
    let m = Mounted::new().await;
    assert_eq!(link_state(&m, "zk2-b1"), "up");
    let up_before = current_view()
        .unwrap()
        .links
        .iter()
        .find(|l| l.a == NodeId::Zk(2) && l.b == NodeId::Broker(1))
        .map(|l| l.a_to_b && l.b_to_a);
    assert_eq!(up_before, Some(true));

    // A stroke perpendicular to the b1–zk2 link (b1's server) through its midpoint, in screen pixels.
    let hit = m.q("[data-testid='link-zk2-b1']").unwrap();
    let r = hit.get_bounding_client_rect();
    let (mx, my) = (r.left() + r.width() / 2.0, r.top() + r.height() / 2.0);
    let svg = m.q("svg.graph").unwrap();
    // Both ends are off the link (16 px, more than a click's tolerance) and short of b1's other
    // server links, so only the crossing itself can cut (not a click test).
    pointer(&svg, "pointerdown", mx - 16.0, my - 3.0);
    for i in 1..=8 {
        pointer(&svg, "pointermove", mx - 16.0 + 4.0 * i as f64, my - 3.0 + 0.75 * i as f64);
    }
    pointer(&svg, "pointerup", mx + 16.0, my + 3.0);
    sleep(60).await;

    let view = current_view().unwrap();
    let l = view.links.iter().find(|l| l.a == NodeId::Zk(2) && l.b == NodeId::Broker(1)).unwrap();
    assert!(!l.a_to_b && !l.b_to_a, "the core has the b1–zk2 link cut both ways");
    assert_eq!(link_state(&m, "zk2-b1"), "cut", "the drawing shows the link cut");
    assert!(m.q("[data-link='zk2-b1'] .cut-mark").is_some(), "a cut mark is drawn on the link");
    // Only that link: the stroke was short and crossed nothing else.
    assert_eq!(m.all("[data-state=cut]").len(), 1);
    assert_eq!(current_step(), Some(1), "the cut is step 1");
    // The log's step 1 is a fault (the event's kind, rendered as a class; the page exposes no
    // marks), and the line shown for it names the cut.
    let first = m.q("#ev-1").expect("the log shows step 1");
    assert!(first.class_list().contains("k-fault"), "the log's step 1 is a fault: {:?}", first.class_name());
    let first_line = first.text_content().unwrap_or_default();
    assert!(first_line.contains("cut"), "the log's step 1 shows the cut: {first_line}");

    // Keyboard route: focus the cut link and press Enter to heal it.
    let hit = m.q("[data-testid='link-zk2-b1']").unwrap();
    assert!(hit.get_attribute("aria-label").unwrap().contains("heal"), "the link's name says Enter heals it");
    let init = KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_bubbles(true);
    hit.dispatch_event(&KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap()).unwrap();
    sleep(60).await;
    let view = current_view().unwrap();
    let l = view.links.iter().find(|l| l.a == NodeId::Zk(2) && l.b == NodeId::Broker(1)).unwrap();
    assert!(l.a_to_b && l.b_to_a, "Enter healed the link in the core");
    assert_eq!(link_state(&m, "zk2-b1"), "up");

    // Undo restores the timeline from before the heal: cut again.
    m.click("[data-testid=undo]");
    sleep(60).await;
    assert_eq!(link_state(&m, "zk2-b1"), "cut");
}

fn rendered_leaders(m: &Mounted) -> Vec<(String, i32)> {
    m.all("[data-testid=partition-table] tr[data-partition]")
        .iter()
        .map(|r| (r.get_attribute("data-partition").unwrap(), r.get_attribute("data-leader").unwrap().parse().unwrap()))
        .collect()
}

fn core_leaders() -> Vec<(String, i32)> {
    current_view().unwrap().partitions.iter().map(|p| (format!("{}-{}", p.topic, p.partition), p.leader)).collect()
}

#[wasm_bindgen_test]
async fn stepping_back_and_forward_renders_the_matching_partition_table() {
    let m = Mounted::new().await;
    assert_eq!(rendered_leaders(&m).len(), 50, "the table lists all 50 __consumer_offsets partitions");
    assert_eq!(rendered_leaders(&m), core_leaders());
    assert!(rendered_leaders(&m).iter().all(|(_, l)| *l >= 0), "every partition has a leader at step 0");

    // To the end: __consumer_offsets-3 has leader -1 and the consumer is stuck.
    m.click("[data-testid=step-end]");
    sleep(80).await;
    let end = current_step().unwrap();
    assert!(end > 100, "the run has many steps ({end})");
    assert_eq!(rendered_leaders(&m), core_leaders());
    let p3 = m.q("[data-testid=partition-table] tr[data-partition='__consumer_offsets-3']").unwrap();
    assert_eq!(p3.get_attribute("data-leader").as_deref(), Some("-1"));
    assert!(p3.class_list().contains("leaderless"));
    assert!(p3.text_content().unwrap().contains("-1 (none)"), "leader -1 is spelled out, not only coloured");
    let status = m.q("[data-testid=consumer-status]").unwrap().text_content().unwrap();
    assert!(status.contains("COORDINATOR_NOT_AVAILABLE"), "consumer status: {status}");

    // Step back with the button until partition 3 has a leader again; the table follows each step.
    let mut restored = None;
    for _ in 0..end {
        m.click("[data-testid=step-back]");
        sleep(5).await;
        let leaders = rendered_leaders(&m);
        assert_eq!(leaders, core_leaders(), "table matches the core at step {:?}", current_step());
        let l3 = leaders.iter().find(|(n, _)| n == "__consumer_offsets-3").unwrap().1;
        if l3 >= 0 {
            restored = Some((current_step().unwrap(), l3));
            break;
        }
    }
    let (at, leader) = restored.expect("stepping back restores a leader for partition 3");
    assert!(leader > 0);
    // And forward again by one step with the ArrowRight key: leader -1 again.
    let init = KeyboardEventInit::new();
    init.set_key("ArrowRight");
    init.set_bubbles(true);
    web_sys::window()
        .unwrap()
        .document()
        .unwrap()
        .dispatch_event(&KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap())
        .unwrap();
    sleep(40).await;
    assert_eq!(current_step(), Some(at + 1));
    assert_eq!(rendered_leaders(&m), core_leaders());
    assert_eq!(
        m.q("[data-testid=partition-table] tr[data-partition='__consumer_offsets-3']")
            .unwrap()
            .get_attribute("data-leader")
            .as_deref(),
        Some("-1")
    );
}

#[wasm_bindgen_test]
async fn a_bad_scenario_file_keeps_the_current_run_and_says_why() {
    // The reducer path that the file picker uses.
    use splitbrain_app::model::{Action, Model};
    use std::rc::Rc;
    use yew::Reducible;
    let m = Rc::new(Model::initial());
    let steps = m.tl.borrow().len();
    let m2 = m.reduce(Action::LoadJson { name: "broken.json".into(), text: "{\"name\": 3".into() });
    let n = m2.notice.clone().expect("a notice");
    assert!(n.error && n.text.contains("broken.json") && n.text.contains("Still showing"), "{}", n.text);
    assert_eq!(m2.tl.borrow().len(), steps, "the current run is kept");
    let m3 = m2.reduce(Action::LoadJson {
        name: "ten.json".into(),
        text: r#"{"name":"x","cluster":{"brokers":[1,2,3,4,5,6,7,8,9,10]}}"#.into(),
    });
    assert!(m3.notice.as_ref().unwrap().text.contains("1 to 9"), "{}", m3.notice.as_ref().unwrap().text);
}

#[wasm_bindgen_test]
async fn a_file_with_faults_past_the_end_of_its_run_loads_and_says_which_were_not_applied() {
    use splitbrain_app::model::{Action, Model};
    use std::rc::Rc;
    use yew::Reducible;
    let m = Rc::new(Model::initial());
    let text = r#"{"name":"late","cluster":{"brokers":[1,2,3]},"end_ms":1000,
        "after_steps":[{"after_step":0,"do":{"op":"crash","node":"b2"}},{"after_step":50000,"do":{"op":"crash","node":"b1"}}]}"#;
    let m2 = m.reduce(Action::LoadJson { name: "late.json".into(), text: text.into() });
    assert_eq!(m2.source, "late.json", "the file is loaded");
    let n = m2.notice.clone().expect("a notice");
    assert!(!n.error, "{}", n.text);
    assert!(
        n.text.contains("1 fault(s)") && n.text.contains("crash b1") && n.text.contains("after step 50000"),
        "{}",
        n.text
    );
    // The same from a restored run (a permalink or an embed).
    let s = splitbrain_sim::Scenario::from_json(text).unwrap();
    let tl = splitbrain_sim::Timeline::new(s, None).unwrap();
    let r = Model::from_restored(tl, "late".into(), splitbrain_sim::Mode::Legacy);
    assert!(r.notice.as_ref().is_some_and(|n| n.text.contains("after step 50000")), "{:?}", r.notice.map(|n| n.text));
}

#[wasm_bindgen_test]
async fn the_page_opens_each_builtin_in_the_same_mode_as_world_and_timeline() {
    use splitbrain_app::model::{Action, Model};
    use splitbrain_sim::scenario::{builtin, builtins};
    use std::rc::Rc;
    use yew::Reducible;
    for (name, _) in builtins() {
        let want = builtin(name).unwrap().opening_mode(None);
        assert_eq!(Model::initial_with(name).mode, want, "{name}: opened first");
        let m = Rc::new(Model::initial()).reduce(Action::LoadBuiltin(name.into()));
        assert_eq!(m.mode, want, "{name}: picked from the list");
        assert_eq!(m.tl.borrow().world_at(0).unwrap().mode(), want, "{name}: the run itself");
    }
}

#[wasm_bindgen_test]
async fn the_reset_button_drops_the_brokers_zookeeper_connection_in_one_fault_step() {
    use splitbrain_sim::view::NodeStatus;
    use splitbrain_sim::zk_client::ConnState;
    let m = Mounted::new().await;
    let b2 = |v: &splitbrain_sim::View| v.nodes.iter().find(|n| n.id == NodeId::Broker(2)).cloned().unwrap();
    let before = b2(&current_view().unwrap());
    assert_eq!(before.status, NodeStatus::Session(ConnState::Connected), "broker 2 starts connected");
    let server = before.zk_server.expect("a ZooKeeper mode names broker 2's server");
    let btn = m.q("[data-testid=reset-b2]").expect("a reset button for broker 2");
    assert_eq!(btn.tag_name(), "BUTTON");
    let label = btn.get_attribute("aria-label").unwrap_or_default();
    assert!(
        label.contains("broker 2") && label.contains(&server.to_string()),
        "the label names broker and server: {label}"
    );
    assert_eq!(m.all("[data-testid^='reset-b']").len(), 3, "one reset button per broker");
    m.click("[data-testid=reset-b2]");
    sleep(60).await;
    assert_eq!(current_step(), Some(1), "the reset is step 1");
    let after = b2(&current_view().unwrap());
    assert_eq!(after.status, NodeStatus::Session(ConnState::Disconnected), "broker 2's client lost its connection");
    let node = m.q("[data-testid=node-b2]").unwrap();
    assert_eq!(node.get_attribute("data-session").as_deref(), Some("disconnected"), "the graph shows it");
    // The step's event is the broker's: its ZooKeeper client saw the connection drop (a session
    // event, rendered as a class; the fault itself is the event's mark).
    let first = m.q("#ev-1").expect("the log shows step 1");
    assert!(first.class_list().contains("k-session"), "step 1 is broker 2's session event: {:?}", first.class_name());
    // The link itself stays up: a reset is not a cut.
    assert!(m.all("[data-state=cut]").is_empty(), "no link is cut");
}
