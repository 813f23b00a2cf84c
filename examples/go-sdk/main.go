// A Cairn agent's day in a few calls, with the Go SDK: remember a preference, recall it, run
// code in a sandbox that is destroyed afterwards, and read an error's code. Reads
// CAIRN_BASE_URL and CAIRN_API_KEY.
//
//	CAIRN_BASE_URL=http://127.0.0.1:8090 CAIRN_API_KEY=cairn_… go run .
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"strings"
	"time"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// CAIRN_BASE_URL (default http://127.0.0.1:8090) and CAIRN_API_KEY.
	client, err := cairn.NewClientFromEnv(cairn.WithRetry(cairn.RetryPolicy{})) // retries idempotent calls only
	if err != nil {
		log.Fatal(err)
	}
	account, err := client.Account(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("signed in as", account.Email)

	// Memory: a preference the agent should keep across sessions, and a question that finds it.
	memory, err := client.Remember(ctx, cairn.RememberRequest{
		Content: "The user prefers concise answers with code first.",
		Kind:    "preference",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("remembered %s (%s)\n", memory.ID, memory.Kind)
	found, err := client.Recall(ctx, "how does the user like answers?", cairn.RecallOptions{Limit: 3})
	if err != nil {
		log.Fatal(err)
	}
	if len(found.Memories) > 0 {
		fmt.Println("recalled:", found.Memories[0].Content)
	}

	// A sandbox for one piece of work; WithSandbox destroys it whatever the work returns.
	err = client.WithSandbox(ctx, cairn.CreateSandboxRequest{Label: "go example"}, func(ctx context.Context, sandbox *cairn.SandboxSession) error {
		if _, err := sandbox.FileCreate(ctx, cairn.FileCreateRequest{Path: "hello.py", Content: "print(sum(range(10)))\n"}); err != nil {
			return err
		}
		output, err := sandbox.Exec(ctx, cairn.ExecRequest{Command: "python3 hello.py"})
		if err != nil {
			return err
		}
		fmt.Println("sandbox printed", strings.TrimSpace(output.Stdout))
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}

	// Errors carry the server's code: forgetting twice finds nothing the second time.
	if err := client.ForgetMemory(ctx, memory.ID); err != nil {
		log.Fatal(err)
	}
	var apiError *cairn.APIError
	if err := client.ForgetMemory(ctx, memory.ID); errors.As(err, &apiError) && apiError.Code == "memory_not_found" {
		fmt.Println("forgotten:", apiError.Message)
	} else {
		log.Fatalf("expected memory_not_found, got %v", err)
	}
}
