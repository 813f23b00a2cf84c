//! The conformance runner: executes test/conformance/scenario.json (format in its README) through
//! this SDK's public methods against the server at `CAIRN_BASE_URL`, printing `ok <title>` or
//! `FAIL <title>: <why>` per step and exiting non-zero at the first failure.
//!
//! `cargo run --example conformance [-- path/to/scenario.json]`

mod calls;
mod checks;
mod sandbox_calls;

use cairn_client::Client;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::process::ExitCode;

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("{why}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), String> {
    let default_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../test/conformance/scenario.json"
    );
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| default_path.to_string());
    let text =
        std::fs::read_to_string(&path).map_err(|error| format!("cannot read {path}: {error}"))?;
    let scenario: Value =
        serde_json::from_str(&text).map_err(|error| format!("{path}: {error}"))?;
    let base_url = std::env::var("CAIRN_BASE_URL").map_err(|_| "set CAIRN_BASE_URL".to_string())?;

    let mut variables: Map<String, Value> = scenario["variables"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    variables.insert("run".into(), Value::String(checks::random_hex()));
    let mut clients: HashMap<Option<String>, Client> = HashMap::new();
    let steps = scenario["steps"]
        .as_array()
        .ok_or("the scenario has no steps")?;
    for step in steps {
        let title = step["title"].as_str().unwrap_or("(untitled)");
        let outcome = run_step(step, &base_url, &mut variables, &mut clients).await;
        match outcome {
            Ok(()) => println!("ok {title}"),
            Err(why) => {
                println!("FAIL {title}: {why}");
                return Err(format!("conformance failed at {title:?}"));
            }
        }
    }
    println!("{} passed, 0 failed", steps.len());
    Ok(())
}

async fn run_step(
    step: &Value,
    base_url: &str,
    variables: &mut Map<String, Value>,
    clients: &mut HashMap<Option<String>, Client>,
) -> Result<(), String> {
    let call = step["call"].as_str().ok_or("the step names no call")?;
    let args = checks::substitute(&step["args"], variables);
    let key = match step["as"].as_str() {
        Some(name) => Some(
            variables
                .get(name)
                .and_then(Value::as_str)
                .ok_or(format!("no saved key {name:?}"))?
                .to_string(),
        ),
        None => None,
    };
    if !clients.contains_key(&key) {
        let mut builder = Client::builder().base_url(base_url);
        if let Some(key) = &key {
            builder = builder.api_key(key);
        }
        clients.insert(
            key.clone(),
            builder.build().map_err(|error| error.to_string())?,
        );
    }
    let client = &clients[&key];
    let result = calls::dispatch(client, call, &args).await?;
    let expected_error = step.get("error");
    let value = match (result, expected_error) {
        (Ok(value), None) => value,
        (Ok(_), Some(expected)) => {
            return Err(format!("succeeded, but an error {expected} was expected"))
        }
        (Err(error), None) => return Err(format!("failed: {error}")),
        (Err(error), Some(expected)) => return checks::expected_error(&error, expected),
    };
    for check in step["expect"].as_array().into_iter().flatten() {
        checks::check(&value, &checks::substitute(check, variables))?;
    }
    for (name, path) in step["save"].as_object().into_iter().flatten() {
        let path = path.as_str().ok_or("a save path is not a string")?;
        let saved = checks::lookup(&value, path).ok_or(format!("nothing at {path:?} to save"))?;
        variables.insert(name.clone(), saved);
    }
    Ok(())
}
