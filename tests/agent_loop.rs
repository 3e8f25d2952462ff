//! The Rust example agent loop (examples/agent_loop.rs) run on its scripted conversation:
//! each question is answered from a memory an earlier turn captured, cited by its label.

#[allow(dead_code, reason = "the example's `main` is for `cargo run --example agent_loop`")]
#[path = "../examples/agent_loop.rs"]
mod agent_loop;

#[test]
fn the_agent_answers_each_question_from_a_captured_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = include_str!("../examples/conversation.txt");
    let mut out = Vec::new();
    agent_loop::run(&dir.path().join("memories"), script, &mut out).expect("the loop runs");
    let out = String::from_utf8(out).expect("UTF-8");
    assert_eq!(out.matches("  remembered: ").count(), 4, "{out}");
    for answer in [
        "  agent: We decided to use PostgreSQL 16 for the event store",
        "  agent: The staging database listens on port 5433",
        "  agent: Important: never run database migrations on a Friday afternoon.",
        "  agent: TIL the CI runners have no GPU",
    ] {
        let line = out.lines().find(|line| line.starts_with(answer)).unwrap_or_else(|| {
            panic!("no answer {answer:?} in:\n{out}");
        });
        assert!(line.ends_with(']') && line.contains(" [M"), "not cited: {line}");
    }
    // Within budget on every turn.
    assert_eq!(out.lines().filter(|line| line.starts_with("  context: ")).count(), 8, "{out}");
    for line in out.lines().filter(|line| line.starts_with("  context: ")) {
        let used: usize = line
            .split(", ")
            .nth(1)
            .and_then(|t| t.split('/').next())
            .and_then(|n| n.parse().ok())
            .expect("a token count");
        assert!(used <= 300, "{line}");
    }
}
