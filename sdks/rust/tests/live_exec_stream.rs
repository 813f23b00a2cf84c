//! Streamed exec and output budgets against the live server: a streamed command's output events
//! for both streams and its exit, a stream dropped early killing the command, refusals before the
//! command starts as `CairnError::Api`, and exec, view and process output cut to a byte budget;
//! against a scripted server, an `error` event after the command started as the API error it
//! carries.

mod support;

use cairn_client::{
    CairnError, CommandRule, CreateSandboxOptions, ExecEvent, ExecEventStream, ExecOptions,
    OutputKeep, ProcessOutputOptions, StartProcessOptions, ViewOptions,
};
use support::{live_account, Answer, ScriptedServer};

async fn collect(mut stream: ExecEventStream) -> Result<Vec<ExecEvent>, CairnError> {
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event?);
    }
    Ok(events)
}

fn api_status(error: &CairnError) -> (u16, &str) {
    match error {
        CairnError::Api { status, code, .. } => (*status, code.as_str()),
        other => panic!("want CairnError::Api, got {other:?}"),
    }
}

#[tokio::test]
async fn streams_both_outputs_then_the_exit() {
    let client = live_account().await;
    client
        .with_sandbox(&CreateSandboxOptions::default(), |sandbox| async move {
            let options = ExecOptions {
                timeout: Some(200),
                ..ExecOptions::default()
            };
            let events =
                collect(sandbox.exec_stream("echo a; echo b >&2; exit 3", options)).await?;
            let (mut stdout, mut stderr) = (String::new(), String::new());
            for event in &events[..events.len() - 1] {
                let ExecEvent::Output {
                    stdout_chunk,
                    stderr_chunk,
                } = event
                else {
                    panic!("not an output event: {event:?}");
                };
                stdout.push_str(stdout_chunk);
                stderr.push_str(stderr_chunk.as_deref().unwrap_or(""));
            }
            assert_eq!((stdout.as_str(), stderr.as_str()), ("a\n", "b\n"));
            assert!(
                matches!(
                    events.last(),
                    Some(ExecEvent::Exit {
                        exit_code: 3,
                        timed_out: false,
                        truncated: false,
                        ..
                    })
                ),
                "{events:?}"
            );

            // Dropping the stream after its first event closes it, which kills the command.
            let options = ExecOptions {
                timeout: Some(600),
                ..ExecOptions::default()
            };
            let command = "echo started; sleep 2; echo finished > finished.txt";
            let mut stream = sandbox.exec_stream(command, options);
            let first = stream.next().await.expect("an event")?;
            assert_eq!(
                first,
                ExecEvent::Output {
                    stdout_chunk: "started\n".into(),
                    stderr_chunk: None
                }
            );
            drop(stream);
            let check = "sleep 3; cat finished.txt 2>/dev/null || echo absent";
            let after = sandbox.exec(check, ExecOptions::default()).await?;
            assert_eq!(after.stdout, "absent\n");
            Ok::<_, CairnError>(())
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn a_refused_streamed_exec_is_the_api_error() {
    let client = live_account().await;
    let mut missing = client.exec_stream("sbx_missing", "echo hi", ExecOptions::default());
    let error = missing.next().await.expect("an outcome").unwrap_err();
    assert_eq!(api_status(&error), (404, "not_found"));
    assert!(missing.next().await.is_none());

    client
        .with_sandbox(&CreateSandboxOptions::default(), |sandbox| async move {
            let too_long = ExecOptions {
                timeout: Some(3601),
                ..ExecOptions::default()
            };
            let error = collect(sandbox.exec_stream("echo hi", too_long))
                .await
                .unwrap_err();
            assert_eq!(api_status(&error), (422, "validation_error"));

            let client = sandbox.client();
            client
                .set_allowed_commands(&[CommandRule::Command("echo".into())])
                .await?;
            let refused =
                collect(sandbox.exec_stream("rm -rf /workspace", ExecOptions::default())).await;
            client.clear_allowed_commands().await?;
            let error = refused.unwrap_err();
            assert_eq!(api_status(&error), (403, "command_not_allowed"));
            Ok::<_, CairnError>(())
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn exec_view_and_process_output_keep_what_the_budget_says() {
    let client = live_account().await;
    client
        .with_sandbox(&CreateSandboxOptions::default(), |sandbox| async move {
            let command = r#"python3 -c "print('x' * 5000 + 'END')""#;
            let tail_options = ExecOptions {
                max_output_bytes: Some(100),
                keep: Some(OutputKeep::Tail),
                ..ExecOptions::default()
            };
            let tail = sandbox.exec(command, tail_options).await?;
            assert!(tail.stdout.ends_with("END\n"), "{tail:?}");
            assert!(tail.stdout_omitted_bytes > 0 && tail.truncated, "{tail:?}");
            assert_eq!(tail.stderr_omitted_bytes, 0);
            let whole = sandbox.exec(command, ExecOptions::default()).await?;
            assert_eq!((whole.stdout.len(), whole.stdout_omitted_bytes), (5004, 0));

            let lines: String = (1..=200).map(|number| format!("line {number}\n")).collect();
            sandbox.file_create("lines.txt", &lines).await?;
            let head_options = ViewOptions {
                max_output_bytes: Some(50),
                ..ViewOptions::default()
            };
            let head = sandbox.view("lines.txt", head_options).await?;
            assert!(head.truncated && head.omitted_bytes > 0, "{head:?}");
            assert!(head.content.starts_with("line 1\n") && head.omitted_lines.is_some());
            let end_options = ViewOptions {
                max_output_bytes: Some(50),
                keep: Some(OutputKeep::Tail),
                ..ViewOptions::default()
            };
            let end = sandbox.view("lines.txt", end_options).await?;
            assert!(end.content.ends_with("line 200\n"), "{end:?}");
            assert!(!end.content.starts_with("line 1\n"));

            let started = sandbox
                .start_process(command, StartProcessOptions::default())
                .await?;
            let id = started.process_id;
            sandbox.wait_process(&id, Some(30)).await?;
            let tail_page = ProcessOutputOptions {
                max_bytes: Some(64),
                keep: Some(OutputKeep::Tail),
                ..ProcessOutputOptions::default()
            };
            let page = sandbox.process_output(&id, tail_page).await?;
            assert!(
                page.stdout.ends_with("END\n") && page.omitted_bytes > 0,
                "{page:?}"
            );
            assert_eq!(page.next_offset, 5004);
            let range = page.omitted_range.clone().expect("an omitted range");
            let (from, to) = (range[0], range[1]);
            let cut_page = ProcessOutputOptions {
                since_offset: from,
                max_bytes: Some(u32::try_from(to - from).unwrap()),
                keep: Some(OutputKeep::Head),
                ..ProcessOutputOptions::default()
            };
            let cut = sandbox.process_output(&id, cut_page).await?;
            assert_eq!(cut.stdout, "x".repeat(usize::try_from(to - from).unwrap()));
            Ok::<_, CairnError>(())
        })
        .await
        .unwrap();
}

#[tokio::test]
async fn an_error_event_after_the_start_is_the_api_error() {
    let body = concat!(
        "event: output\ndata: {\"type\":\"output\",\"stdout_chunk\":\"partial\\n\"}\n\n: keep-alive\n\n",
        "event: error\ndata: {\"type\":\"error\",\"status\":429,\"error\":{\"code\":\"sandbox_process_limit_reached\",",
        "\"message\":\"The sandbox runs as many processes as its size allows\",\"retryable\":true,",
        "\"remediation\":\"Wait\",\"details\":{\"limit\":64,\"size\":\"small\"}}}\n\n",
    );
    let server = ScriptedServer::start(vec![Answer::new(200, body)]).await;
    let client = server.client().build().unwrap();
    let options = ExecOptions {
        timeout: Some(1200),
        ..ExecOptions::default()
    };
    let mut stream = client.exec_stream("sandbox-1", "make", options);
    assert_eq!(
        stream.next().await.unwrap().unwrap(),
        ExecEvent::Output {
            stdout_chunk: "partial\n".into(),
            stderr_chunk: None
        }
    );
    match stream.next().await.unwrap() {
        Err(CairnError::Api {
            status: 429,
            code,
            retryable: true,
            details: Some(details),
            ..
        }) => {
            assert_eq!(code, "sandbox_process_limit_reached");
            assert_eq!(
                *details,
                serde_json::json!({ "limit": 64, "size": "small" })
            );
        }
        other => panic!("want the error event's API error, got {other:?}"),
    }
    assert!(stream.next().await.is_none());
    let received = server.received();
    assert_eq!(received.len(), 1);
    assert_eq!(
        (received[0].method.as_str(), received[0].target.as_str()),
        ("POST", "/v1/sandboxes/sandbox-1/exec")
    );
    assert_eq!(
        received[0].json(),
        serde_json::json!({ "command": "make", "timeout": 1200 })
    );
    assert!(received[0]
        .headers
        .iter()
        .any(|(name, value)| name == "accept" && value == "text/event-stream"));
}
