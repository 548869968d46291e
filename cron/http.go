package cron

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"
)

// DefaultHTTPTimeout is how long http_request waits for a whole exchange when its
// step gives no timeout.
const DefaultHTTPTimeout = 30 * time.Second

type httpArgs struct {
	method  string
	url     string
	headers map[string]string
	body    string
	timeout time.Duration
}

func parseHTTP(args map[string]any) (httpArgs, error) {
	var a httpArgs
	if err := checkKeys(args, "method", "url", "headers", "body", "timeout"); err != nil {
		return a, err
	}
	var err error
	if a.method, err = needString(args, "method"); err != nil {
		return a, err
	}
	a.method = strings.ToUpper(a.method)
	if strings.IndexFunc(a.method, func(r rune) bool { return r < 'A' || r > 'Z' }) >= 0 {
		return a, fmt.Errorf("%w: method %q is not an HTTP method", ErrBadArgs, a.method)
	}
	if a.url, err = needString(args, "url"); err != nil {
		return a, err
	}
	u, err := url.Parse(a.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return a, fmt.Errorf("%w: url must be an http:// or https:// URL", ErrBadArgs)
	}
	if v, ok := args["headers"]; ok && v != nil {
		m, ok := v.(map[string]any)
		if !ok {
			return a, fmt.Errorf("%w: headers must be an object of strings, not %T", ErrBadArgs, v)
		}
		a.headers = make(map[string]string, len(m))
		for k, hv := range m {
			s, ok := hv.(string)
			if !ok {
				return a, fmt.Errorf("%w: header %q must be a string, not %T", ErrBadArgs, k, hv)
			}
			a.headers[k] = s
		}
	}
	if a.body, _, err = argString(args, "body"); err != nil {
		return a, err
	}
	a.timeout, err = argTimeout(args, DefaultHTTPTimeout)
	return a, err
}

func checkHTTP(args map[string]any) error {
	_, err := parseHTTP(args)
	return err
}

// runHTTP is http_request {method, url, headers?, body?, timeout?}: one HTTP exchange
// (redirects followed) that must end within timeout (default DefaultHTTPTimeout).
// The output is the status line, the response headers sorted, a blank line and the
// body — its last MaxOutput bytes. A status of 400 or more fails the step with that
// status as exit code; a transport error or timeout fails it with exit code 1.
func runHTTP(ctx context.Context, _ Env, args map[string]any) (Result, error) {
	a, err := parseHTTP(args)
	if err != nil {
		return failed, err
	}
	ctx, cancel := context.WithTimeoutCause(ctx, a.timeout, ErrTimeout)
	defer cancel()
	var body io.Reader
	if a.body != "" {
		body = strings.NewReader(a.body)
	}
	req, err := http.NewRequestWithContext(ctx, a.method, a.url, body)
	if err != nil {
		return failed, fmt.Errorf("%w: %v", ErrBadArgs, err)
	}
	for k, v := range a.headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return failed, httpErr(ctx, a, err)
	}
	defer resp.Body.Close()
	var out tail
	fmt.Fprintf(&out, "%s %s\n", resp.Proto, resp.Status)
	keys := make([]string, 0, len(resp.Header))
	for k := range resp.Header {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range resp.Header[k] {
			fmt.Fprintf(&out, "%s: %s\n", k, v)
		}
	}
	out.Write([]byte("\n"))
	if _, err := io.Copy(&out, resp.Body); err != nil {
		return Result{ExitCode: 1, Output: out.String()}, httpErr(ctx, a, err)
	}
	res := Result{Output: out.String()}
	if resp.StatusCode >= 400 {
		res.ExitCode = resp.StatusCode
		return res, fmt.Errorf("HTTP status %s", resp.Status)
	}
	return res, nil
}

// httpErr says a request timed out when it did, without the URL's query (which may
// hold a token).
func httpErr(ctx context.Context, a httpArgs, err error) error {
	if errors.Is(context.Cause(ctx), ErrTimeout) {
		return fmt.Errorf("%s %s: %w after %s", a.method, redact(a.url), ErrTimeout, a.timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Errorf("%s %s: %w", a.method, redact(a.url), err)
}

// redact drops a URL's user info, query and fragment.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(bad url)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}
