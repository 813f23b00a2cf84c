//! The scenario's data side: `{{name}}` substitution, dotted paths with `*`, and the matchers.

use cairn_client::CairnError;
use serde_json::{Map, Value};
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

pub fn random_hex() -> String {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    format!("{:016x}", hasher.finish())
}

/// A string that is exactly `{{name}}` becomes the saved value itself; inside a longer string the
/// value is written into the text.
pub fn substitute(value: &Value, variables: &Map<String, Value>) -> Value {
    match value {
        Value::String(text) => {
            if let Some(name) = text
                .strip_prefix("{{")
                .and_then(|rest| rest.strip_suffix("}}"))
            {
                if let Some(saved) = variables.get(name) {
                    return saved.clone();
                }
            }
            let mut result = text.clone();
            for (name, saved) in variables {
                let written = match saved {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                };
                result = result.replace(&format!("{{{{{name}}}}}"), &written);
            }
            Value::String(result)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|item| substitute(item, variables))
                .collect(),
        ),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(name, field)| (name.clone(), substitute(field, variables)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The value at a dot-separated path; a `*` segment collects that field from every list item.
pub fn lookup(value: &Value, path: &str) -> Option<Value> {
    let mut current = vec![value.clone()];
    let mut collected = false;
    for segment in path.split('.') {
        let mut next = Vec::new();
        for item in current {
            if segment == "*" {
                next.extend(item.as_array()?.iter().cloned());
                collected = true;
            } else if let Ok(index) = segment.parse::<usize>() {
                next.push(item.as_array()?.get(index)?.clone());
            } else {
                next.push(item.as_object()?.get(segment)?.clone());
            }
        }
        current = next;
    }
    if collected {
        Some(Value::Array(current))
    } else {
        current.into_iter().next()
    }
}

/// JSON equality where 1 and 1.0 are the same number.
fn same(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(left), Value::Number(right)) => left.as_f64() == right.as_f64(),
        (Value::Array(left), Value::Array(right)) => {
            left.len() == right.len()
                && left
                    .iter()
                    .zip(right)
                    .all(|(left, right)| same(left, right))
        }
        (Value::Object(left), Value::Object(right)) => {
            left.len() == right.len()
                && left
                    .iter()
                    .all(|(name, value)| right.get(name).is_some_and(|other| same(value, other)))
        }
        _ => left == right,
    }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

pub fn check(result: &Value, check: &Value) -> Result<(), String> {
    let path = check["path"].as_str().ok_or("a check without a path")?;
    let actual = lookup(result, path).ok_or(format!("nothing at {path:?} in {result}"))?;
    let fail = |what: String| Err(format!("{path}: {what}, got {actual}"));
    if let Some(expected) = check.get("equals") {
        if !same(&actual, expected) {
            return fail(format!("expected {expected}"));
        }
    } else if let Some(prefix) = check.get("prefix").and_then(Value::as_str) {
        if !actual.as_str().is_some_and(|text| text.starts_with(prefix)) {
            return fail(format!("expected a string starting {prefix:?}"));
        }
    } else if let Some(part) = check.get("contains").and_then(Value::as_str) {
        if !actual.as_str().is_some_and(|text| text.contains(part)) {
            return fail(format!("expected a string containing {part:?}"));
        }
    } else if let Some(expected) = check.get("includes") {
        if !actual
            .as_array()
            .is_some_and(|items| items.iter().any(|item| same(item, expected)))
        {
            return fail(format!("expected a list including {expected}"));
        }
    } else if let Some(expected) = check.get("type").and_then(Value::as_str) {
        if type_name(&actual) != expected {
            return fail(format!("expected a value of type {expected}"));
        }
    } else if let Some(minimum) = check.get("length_at_least").and_then(Value::as_u64) {
        if actual
            .as_array()
            .is_none_or(|items| (items.len() as u64) < minimum)
        {
            return fail(format!("expected a list of at least {minimum}"));
        }
    } else {
        return Err(format!(
            "{path}: the check has no matcher this runner knows: {check}"
        ));
    }
    Ok(())
}

pub fn expected_error(error: &CairnError, expected: &Value) -> Result<(), String> {
    let CairnError::Api { status, code, .. } = error else {
        return Err(format!("expected an API error {expected}, got {error}"));
    };
    let family = error.api_error_type().map(|family| family.as_str());
    let matches = expected["status"].as_u64() == Some(u64::from(*status))
        && expected["code"].as_str() == Some(code.as_str())
        && expected
            .get("api_error_type")
            .is_none_or(|wanted| wanted.as_str() == family);
    if matches {
        Ok(())
    } else {
        Err(format!(
            "expected {expected}, got {error} (api_error_type {family:?})"
        ))
    }
}
