package opencode

import (
	"regexp"
	"strings"
)

// savedOutput is the line OpenCode puts above a shortened tool output:
// where it saved the whole, a file of its data directory named for the
// call, which differs from run to run.
var savedOutput = regexp.MustCompile(`(?m)^Full output saved to: .*/tool-output/tool_[0-9A-Za-z]+$`)

// Clean makes a tool's output as OpenCode sends it comparable from run
// to run: the file a shortened output was saved to reads as
// "tool-output/tool_0".
func Clean(text string) string {
	if strings.Contains(text, "Full output saved to: ") {
		text = savedOutput.ReplaceAllString(text, "Full output saved to: tool-output/tool_0")
	}
	return text
}
