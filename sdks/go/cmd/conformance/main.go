// The Go runner of test/conformance/scenario.json: each step calls this SDK's public method
// for its operation and checks the answer as the scenario says (format in
// test/conformance/README.md). Prints one line per step and exits 1 at the first failure.
//
//	go run ./cmd/conformance -base-url http://127.0.0.1:8090 -scenario ../../test/conformance/scenario.json
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"time"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

type step struct {
	Title  string            `json:"title"`
	Call   string            `json:"call"`
	As     string            `json:"as"`
	Args   map[string]any    `json:"args"`
	Expect []map[string]any  `json:"expect"`
	Error  *expectedError    `json:"error"`
	Save   map[string]string `json:"save"`
}

type expectedError struct {
	Status       int    `json:"status"`
	Code         string `json:"code"`
	APIErrorType string `json:"api_error_type"`
}

type scenario struct {
	Variables map[string]any `json:"variables"`
	Steps     []step         `json:"steps"`
}

func main() {
	baseURL := flag.String("base-url", os.Getenv("CAIRN_BASE_URL"), "the live server (default $CAIRN_BASE_URL)")
	scenarioPath := flag.String("scenario", "../../test/conformance/scenario.json", "the scenario file")
	flag.Parse()
	text, err := os.ReadFile(*scenarioPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, "reading the scenario:", err)
		os.Exit(2)
	}
	var story scenario
	if err := json.Unmarshal(text, &story); err != nil {
		fmt.Fprintln(os.Stderr, "decoding the scenario:", err)
		os.Exit(2)
	}
	variables := map[string]any{"run": randomRun()}
	for name, value := range story.Variables {
		variables[name] = value
	}
	for _, current := range story.Steps {
		if problem := runStep(*baseURL, current, variables); problem != "" {
			fmt.Printf("FAIL %s: %s\n", current.Title, problem)
			os.Exit(1)
		}
		fmt.Printf("ok %s\n", current.Title)
	}
}

func randomRun() string {
	bytes := make([]byte, 6)
	_, _ = rand.Read(bytes)
	return hex.EncodeToString(bytes)
}

func runStep(baseURL string, current step, variables map[string]any) string {
	key := ""
	if current.As != "" {
		key = fmt.Sprint(variables[current.As])
	}
	client, err := cairn.NewClient(baseURL, key, cairn.WithTimeout(60*time.Second))
	if err != nil {
		return err.Error()
	}
	args, _ := substitute(current.Args, variables).(map[string]any)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	result, err := call(ctx, client, current.Call, arguments(args))
	if current.Error != nil {
		return checkError(err, *current.Error)
	}
	if err != nil {
		return "failed: " + err.Error()
	}
	answer, err := asJSON(result)
	if err != nil {
		return err.Error()
	}
	for _, expectation := range current.Expect {
		expectation, _ := substitute(expectation, variables).(map[string]any)
		if problem := check(answer, expectation); problem != "" {
			return problem
		}
	}
	for name, path := range current.Save {
		variables[name] = pick(answer, path)
	}
	return ""
}

func checkError(err error, want expectedError) string {
	var apiError *cairn.APIError
	if err == nil {
		return fmt.Sprintf("succeeded, expected %d %s", want.Status, want.Code)
	}
	if !errors.As(err, &apiError) {
		return "failed without an API error: " + err.Error()
	}
	if apiError.StatusCode != want.Status || apiError.Code != want.Code {
		return fmt.Sprintf("failed with %d %s, expected %d %s", apiError.StatusCode, apiError.Code, want.Status, want.Code)
	}
	if want.APIErrorType != "" && string(apiError.Taxonomy) != want.APIErrorType {
		return fmt.Sprintf("api_error_type is %q, expected %q", apiError.Taxonomy, want.APIErrorType)
	}
	return ""
}

// asJSON turns a typed result back into plain JSON values, as the scenario's paths read it.
func asJSON(result any) (any, error) {
	encoded, err := json.Marshal(result)
	if err != nil {
		return nil, err
	}
	var plain any
	return plain, json.Unmarshal(encoded, &plain)
}

var wholeVariable = regexp.MustCompile(`^\{\{(\w+)\}\}$`)
var variableInText = regexp.MustCompile(`\{\{(\w+)\}\}`)

// substitute replaces "{{name}}" with the saved value itself, and {{name}} inside a longer
// string with the value written into the text.
func substitute(value any, variables map[string]any) any {
	switch typed := value.(type) {
	case string:
		if match := wholeVariable.FindStringSubmatch(typed); match != nil {
			return variables[match[1]]
		}
		return variableInText.ReplaceAllStringFunc(typed, func(found string) string {
			return fmt.Sprint(variables[variableInText.FindStringSubmatch(found)[1]])
		})
	case []any:
		items := make([]any, len(typed))
		for index, item := range typed {
			items[index] = substitute(item, variables)
		}
		return items
	case map[string]any:
		fields := make(map[string]any, len(typed))
		for name, item := range typed {
			fields[name] = substitute(item, variables)
		}
		return fields
	}
	return value
}
