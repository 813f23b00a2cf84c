//! Background processes against the live server: stdin with eof, output read by offsets (nothing
//! lost or repeated), the event stream followed live and resumed from an offset, wait, stop and
//! list, and the refusals a caller can act on; and, against a scripted server, a stream closed
//! before its exit event resuming from the last offset.

mod support;

use cairn_client::{
    CairnError, CreateSandboxOptions, ProcessEvent, ProcessEventStream, ProcessOutputOptions,
    StartProcessOptions,
};
use support::{live_account, Answer, ScriptedServer};

const ECHO: &str = r#"python3 -c "import sys; print(input()); print('err', file=sys.stderr)""#;

async fn collect(mut stream: ProcessEventStream) -> Result<Vec<ProcessEvent>, CairnError> {
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event?);
    }
    Ok(events)
}

/// Stdout and stderr of the output events, each joined.
fn joined(events: &[ProcessEvent]) -> (String, String) {
    let (mut stdout, mut stderr) = (String::new(), String::new());
    for event in events {
        if let ProcessEvent::Output {
            stdout_chunk,
            stderr_chunk,
            ..
        } = event
        {
            stdout.push_str(stdout_chunk);
            stderr.push_str(stderr_chunk);
        }
    }
    (stdout, stderr)
}

#[tokio::test]
async fn runs_feeds_reads_streams_waits_and_stops_processes() {
    let client = live_account().await;
    client
        .with_sandbox(&CreateSandboxOptions::default(), |sandbox| async move {
            let options = StartProcessOptions {
                description: Some("echo a line".to_string()),
                ..StartProcessOptions::default()
            };
            let started = sandbox.start_process(ECHO, options).await?;
            let id = started.process_id.clone();
            assert!(id.starts_with("proc_"));
            assert_eq!(started.status, "running");
            assert_eq!(started.description.as_deref(), Some("echo a line"));

            let input = sandbox.process_input(&id, "hello\n", true).await?;
            assert_eq!((input.bytes_written, input.stdin_open), (6, false));
            let ended = sandbox.wait_process(&id, Some(30)).await?;
            assert_eq!(
                (ended.status.as_str(), ended.exit_code, ended.output_bytes),
                ("exited", Some(0), 10)
            );

            // Pages of at most 4 bytes, each from the previous next_offset: every byte once.
            let (mut stdout, mut stderr, mut offset) = (String::new(), String::new(), 0);
            loop {
                let options = ProcessOutputOptions {
                    since_offset: offset,
                    max_bytes: Some(4),
                    ..ProcessOutputOptions::default()
                };
                let page = sandbox.process_output(&id, options).await?;
                assert_eq!((page.offset, page.truncated), (offset, false));
                if page.next_offset == offset {
                    assert_eq!((page.status.as_str(), page.exit_code), ("exited", Some(0)));
                    break;
                }
                stdout.push_str(&page.stdout);
                stderr.push_str(&page.stderr);
                offset = page.next_offset;
            }
            assert_eq!(
                (stdout.as_str(), stderr.as_str(), offset),
                ("hello\n", "err\n", 10)
            );

            let events = collect(sandbox.stream_process(&id, 0)).await?;
            assert_eq!(
                joined(&events),
                ("hello\n".to_string(), "err\n".to_string())
            );
            assert_eq!(
                events.last(),
                Some(&ProcessEvent::Exit {
                    status: "exited".to_string(),
                    exit_code: Some(0),
                    next_offset: 10
                })
            );
            // Resuming from an event's offset sends only what came after it.
            let rest = collect(sandbox.stream_process(&id, events[0].next_offset())).await?;
            assert_eq!(joined(&rest), joined(&events[1..]));
            assert!(matches!(rest.last(), Some(ProcessEvent::Exit { .. })));

            match sandbox.process_input(&id, "more\n", false).await {
                Err(CairnError::Api { status, code, .. }) => {
                    assert_eq!((status, code.as_str()), (409, "process_not_running"))
                }
                other => panic!("input after the end: {other:?}"),
            }

            let options = StartProcessOptions {
                max_runtime_seconds: Some(600),
                ..StartProcessOptions::default()
            };
            let sleeper = sandbox.start_process("sleep 300", options).await?;
            let still = sandbox.wait_process(&sleeper.process_id, Some(1)).await?;
            assert_eq!(still.status, "running");
            let listed = sandbox.list_processes().await?;
            let ids: Vec<&str> = listed
                .processes
                .iter()
                .map(|process| process.process_id.as_str())
                .collect();
            assert_eq!(ids, [id.as_str(), sleeper.process_id.as_str()]);
            let stopped = sandbox.stop_process(&sleeper.process_id).await?;
            assert_eq!(stopped.status, "killed");
            assert!(stopped.ended_at.is_some());
            assert_eq!(
                sandbox.get_process(&sleeper.process_id).await?.status,
                "killed"
            );
            match sandbox
                .get_process(&format!("proc_{}", "0".repeat(32)))
                .await
            {
                Err(CairnError::Api { status, .. }) => assert_eq!(status, 404),
                other => panic!("an unknown process: {other:?}"),
            }
            Ok::<_, CairnError>(())
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn a_stream_follows_a_running_process() {
    let client = live_account().await;
    client
        .with_sandbox(&CreateSandboxOptions::default(), |sandbox| async move {
            let command =
                "python3 -u -c \"import time\nfor i in range(3): print(i); time.sleep(0.3)\"";
            let started = sandbox
                .start_process(command, StartProcessOptions::default())
                .await?;
            let events = collect(sandbox.stream_process(&started.process_id, 0)).await?;
            assert_eq!(joined(&events).0, "0\n1\n2\n");
            assert!(events.len() >= 4, "the lines came as printed: {events:?}");
            assert!(matches!(
                events.last(),
                Some(ProcessEvent::Exit {
                    exit_code: Some(0),
                    ..
                })
            ));
            Ok::<_, CairnError>(())
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn a_stream_closed_before_the_exit_resumes_from_the_last_offset() {
    // The live server closes a stream after 5 minutes: this one closes it at once.
    let first = "id: 3\nevent: output\ndata: {\"type\":\"output\",\"stdout_chunk\":\"ab\\n\",\"stderr_chunk\":\"\",\"next_offset\":3,\"truncated\":false}\n\n: keep-alive\n\n";
    let last = "id: 3\r\nevent: exit\r\ndata: {\"type\":\"exit\",\"status\":\"exited\",\"exit_code\":0,\"next_offset\":3}\r\n\r\n";
    let server = ScriptedServer::start(vec![Answer::new(200, first), Answer::new(200, last)]).await;
    let client = server.client().build().unwrap();
    let mut stream = client.stream_process("sandbox-1", "proc_1", 0);
    let mut kinds = Vec::new();
    while let Some(event) = stream.next().await {
        kinds.push(match event.unwrap() {
            ProcessEvent::Output { .. } => "output",
            ProcessEvent::Exit { .. } => "exit",
        });
    }
    assert_eq!(kinds, ["output", "exit"]);
    assert_eq!(stream.next_offset(), 3);
    let targets: Vec<String> = server
        .received()
        .into_iter()
        .map(|request| request.target)
        .collect();
    assert_eq!(
        targets,
        [
            "/v1/sandboxes/sandbox-1/processes/proc_1/stream?since_offset=0",
            "/v1/sandboxes/sandbox-1/processes/proc_1/stream?since_offset=3",
        ]
    );
}
