// The scenario's operation names mapped to this SDK's public methods, with the step's wire
// (snake_case) arguments turned into the methods' typed parameters.
package main

import (
	"context"
	"encoding/json"
	"fmt"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

// arguments reads a step's JSON arguments; absent ones are the zero value (the SDK default).
type arguments map[string]any

func (a arguments) text(name string) string {
	value, _ := a[name].(string)
	return value
}

func (a arguments) number(name string) int {
	value, _ := a[name].(float64)
	return int(value)
}

func (a arguments) optionalFloat(name string) *float64 {
	if value, ok := a[name].(float64); ok {
		return &value
	}
	return nil
}

func (a arguments) object(name string) map[string]any {
	value, _ := a[name].(map[string]any)
	return value
}

// into converts a JSON argument (an exported list) to a typed value through its JSON.
func into[T any](value any) (T, error) {
	var typed T
	encoded, err := json.Marshal(value)
	if err == nil {
		err = json.Unmarshal(encoded, &typed)
	}
	return typed, err
}

func call(ctx context.Context, client *cairn.Client, name string, args arguments) (any, error) {
	switch name {
	case "signup":
		return client.Signup(ctx, args.text("email"), args.text("password"))
	case "login":
		return client.Login(ctx, args.text("email"), args.text("password"))
	case "create_api_key":
		return client.CreateAPIKey(ctx, args.text("access_token"), args.text("name"))
	case "remember":
		return client.Remember(ctx, cairn.RememberRequest{
			Content: args.text("content"), Scope: args.text("scope"), Kind: args.text("kind"),
			Metadata: args.object("metadata"), SourceSessionID: args.text("source_session_id"),
			Importance: args.optionalFloat("importance"),
		})
	case "recall":
		return client.Recall(ctx, args.text("query"), cairn.RecallOptions{Scope: args.text("scope"), Limit: args.number("limit")})
	case "memory_profile":
		return client.MemoryProfile(ctx, args.text("scope"), args.number("limit"))
	case "memory_relations":
		return client.MemoryRelations(ctx, args.text("memory_id"), args.number("limit"))
	case "export_memories":
		return client.ExportMemories(ctx, args.text("scope"))
	case "import_memories":
		memories, err := into[[]cairn.MemoryRecord](args["memories"])
		if err != nil {
			return nil, err
		}
		relations, err := into[[]cairn.RelationRecord](args["relations"])
		if err != nil {
			return nil, err
		}
		return client.ImportMemories(ctx, cairn.ImportMemoriesRequest{Memories: memories, Relations: relations})
	case "forget_memory":
		return nil, client.ForgetMemory(ctx, args.text("memory_id"))
	case "get_memory":
		return client.GetMemory(ctx, args.text("memory_id"))
	case "create_sandbox":
		return client.CreateSandbox(ctx, cairn.CreateSandboxRequest{Label: args.text("label"), Size: args.text("size")})
	case "get_sandbox":
		return client.GetSandbox(ctx, args.text("session_id"))
	case "destroy_sandbox":
		return nil, client.DestroySandbox(ctx, args.text("session_id"))
	case "exec":
		return client.Exec(ctx, args.text("session_id"), cairn.ExecRequest{Command: args.text("command"), Timeout: args.number("timeout")})
	case "file_create":
		return client.FileCreate(ctx, args.text("session_id"), cairn.FileCreateRequest{Path: args.text("path"), Content: args.text("content")})
	case "view":
		return client.View(ctx, args.text("session_id"), cairn.ViewRequest{Path: args.text("path")})
	case "str_replace":
		return client.StrReplace(ctx, args.text("session_id"), cairn.StrReplaceRequest{
			Path: args.text("path"), OldStr: args.text("old_str"), NewStr: args.text("new_str"),
		})
	case "list_tools":
		return client.ListTools(ctx)
	case "call_tool":
		input := args.object("input")
		if input == nil {
			input = map[string]any{}
		}
		var output any
		err := client.CallTool(ctx, args.text("name"), input, &output)
		return output, err
	}
	return nil, fmt.Errorf("no SDK method for %s", name)
}
