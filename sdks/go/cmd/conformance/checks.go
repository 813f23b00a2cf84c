// The scenario's checks on a JSON result: dotted paths with `*` segments, and the matchers
// equals, prefix, contains, includes, type and length_at_least.
package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

func pick(value any, path string) any {
	parts := strings.Split(path, ".")
	current := value
	for index, part := range parts {
		if part == "*" {
			items, _ := current.([]any)
			rest := strings.Join(parts[index+1:], ".")
			collected := make([]any, len(items))
			for itemIndex, item := range items {
				collected[itemIndex] = item
				if rest != "" {
					collected[itemIndex] = pick(item, rest)
				}
			}
			return collected
		}
		switch typed := current.(type) {
		case map[string]any:
			current = typed[part]
		case []any:
			position, err := strconv.Atoi(part)
			if err != nil || position < 0 || position >= len(typed) {
				return nil
			}
			current = typed[position]
		default:
			return nil
		}
	}
	return current
}

func shown(value any) string {
	encoded, _ := json.Marshal(value)
	return string(encoded)
}

func typeOf(value any) string {
	switch value.(type) {
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

func check(result any, expectation map[string]any) string {
	path, _ := expectation["path"].(string)
	actual := pick(result, path)
	if want, ok := expectation["equals"]; ok && shown(actual) != shown(want) {
		return fmt.Sprintf("%s is %s, expected %s", path, shown(actual), shown(want))
	}
	if want, ok := expectation["prefix"].(string); ok && !strings.HasPrefix(fmt.Sprint(actual), want) {
		return fmt.Sprintf("%s is %s, expected it to start with %s", path, shown(actual), want)
	}
	if want, ok := expectation["contains"].(string); ok && !strings.Contains(fmt.Sprint(actual), want) {
		return fmt.Sprintf("%s is %s, expected it to contain %s", path, shown(actual), want)
	}
	if want, ok := expectation["includes"]; ok {
		items, _ := actual.([]any)
		found := false
		for _, item := range items {
			found = found || shown(item) == shown(want)
		}
		if !found {
			return fmt.Sprintf("%s is %s, expected it to include %s", path, shown(actual), shown(want))
		}
	}
	if want, ok := expectation["type"].(string); ok && typeOf(actual) != want {
		return fmt.Sprintf("%s is %s, expected a %s", path, shown(actual), want)
	}
	if want, ok := expectation["length_at_least"].(float64); ok {
		items, isList := actual.([]any)
		if !isList || float64(len(items)) < want {
			return fmt.Sprintf("%s is %s, expected at least %v items", path, shown(actual), want)
		}
	}
	return ""
}
