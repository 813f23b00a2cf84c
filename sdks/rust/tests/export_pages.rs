//! `export_memories` follows `next_cursor`: a server answers an export in pages (at most 10,000
//! memories and about 4 MiB each), and the client joins every page into one export, so an account
//! larger than a page loses nothing. Against a scripted server answering two pages.

mod support;

use support::{Answer, ScriptedServer};

fn memory(id: &str) -> String {
    format!(
        r#"{{"id":"{id}","scope":"work","kind":"fact","content":"Memory {id}","metadata":{{}},"source_session_id":null,"source_content":null,"document_date":null,"event_dates":[],"importance":0.5,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","expires_at":null,"superseded_at":null,"superseded_by_id":null}}"#
    )
}

#[tokio::test]
async fn export_memories_joins_every_page() {
    let first = format!(
        r#"{{"version":1,"memories":[{},{}],"relations":[],"next_cursor":"cursor-1"}}"#,
        memory("a"),
        memory("b")
    );
    let last = format!(
        r#"{{"version":1,"memories":[{}],"relations":[{{"source_memory_id":"b","target_memory_id":"c","relation_type":"related","confidence":0.5}}],"next_cursor":null}}"#,
        memory("c")
    );
    let server =
        ScriptedServer::start(vec![Answer::new(200, &first), Answer::new(200, &last)]).await;
    let client = server.client().build().unwrap();
    let export = client.export_memories(Some("work")).await.unwrap();
    let ids: Vec<&str> = export
        .memories
        .iter()
        .map(|memory| memory.id.as_str())
        .collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert_eq!(export.relations.len(), 1);
    assert_eq!(export.next_cursor, None);
    let targets: Vec<String> = server
        .received()
        .into_iter()
        .map(|request| request.target)
        .collect();
    assert_eq!(
        targets,
        [
            "/v1/memory/export?scope=work",
            "/v1/memory/export?scope=work&cursor=cursor-1"
        ]
    );
}
