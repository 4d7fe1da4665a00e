// nullbinder: the "ceiling" of test/bench/e2e/run.py. It does what a scheduler must do to the
// API server and nothing else: an informer on the unbound pods of its schedulerName
// (field selector spec.schedulerName=<name>,spec.nodeName=), a node lister, and --workers
// goroutines that take pod keys from a workqueue and POST a Binding for each, round-robin over
// the nodes in name order, with no filtering or scoring. Requests go through client-go's default
// transport with protobuf bodies, as kube-scheduler's do: HTTP/2, multiplexed over one TLS
// connection while --workers stays within the API server's concurrent streams per connection
// (100 by default; past that the transport dials more). So its rate is the most a client-go
// scheduler can get from this API server. run.py's default of 64 workers comes from the
// saturation sweep in test/bench/e2e/RESULTS.md ("A real ceiling").
//
// It prints one line starting with "nullbinder ready" on stdout once both informers have synced,
// and one "nullbinder stopped" line with its counters on SIGTERM/SIGINT. Exit status 1 with a
// message on stderr when the kubeconfig cannot be loaded or the informers never sync.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
)

// maxRetries bounds the re-binds of a pod whose Binding failed with something other than
// "already bound" or "gone" (e.g. a timeout under overload).
const maxRetries = 5

// binder owns the queue, the node names and the counters; its methods may be called from any
// goroutine.
type binder struct {
	client kubernetes.Interface
	pods   corelisters.PodLister
	nodes  corelisters.NodeLister
	queue  workqueue.TypedRateLimitingInterface[cache.ObjectName]

	// Node names in name order, rebuilt from the lister after a node event set nodesDirty.
	nodeNames  atomic.Pointer[[]string]
	nodesDirty atomic.Bool
	next       atomic.Uint64 // round-robin cursor

	bound, retried, dropped atomic.Int64
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the API server (required)")
	schedulerName := flag.String("scheduler-name", "null-binder", "bind pods with this spec.schedulerName")
	workers := flag.Int("workers", 64, "goroutines POSTing Bindings concurrently")
	qps := flag.Float64("qps", -1, "client-go rate limit, requests/s; <= 0 disables it")
	burst := flag.Int("burst", 0, "client-go rate limiter burst (with --qps > 0)")
	contentType := flag.String("content-type", "application/vnd.kubernetes.protobuf",
		"request/response encoding (kube-scheduler's default is protobuf)")
	flag.Parse()
	if *kubeconfig == "" || *workers < 1 {
		fmt.Fprintln(os.Stderr, "usage: nullbinder --kubeconfig FILE [--scheduler-name NAME] [--workers N] [--qps Q --burst B]")
		os.Exit(2)
	}

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nullbinder: %v\n", err)
		os.Exit(1)
	}
	// client-go treats QPS 0 as "default 5/s" and a negative QPS as "no rate limiter".
	cfg.QPS = float32(*qps)
	if *qps <= 0 {
		cfg.QPS = -1
	}
	cfg.Burst = *burst
	cfg.ContentType = *contentType
	cfg.AcceptContentTypes = *contentType + ",application/json"
	cfg.UserAgent = "nullbinder"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "nullbinder: %v\n", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	start := time.Now()

	// Two factories: the field selector applies to every informer of a factory, and nodes
	// must not be filtered by it.
	podFactory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.FieldSelector = "spec.schedulerName=" + *schedulerName + ",spec.nodeName="
		}))
	nodeFactory := informers.NewSharedInformerFactory(client, 0)
	podInformer := podFactory.Core().V1().Pods()
	nodeInformer := nodeFactory.Core().V1().Nodes()

	b := &binder{
		client: client,
		pods:   podInformer.Lister(),
		nodes:  nodeInformer.Lister(),
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[cache.ObjectName](),
			workqueue.TypedRateLimitingQueueConfig[cache.ObjectName]{Name: "nullbinder"}),
	}
	b.nodesDirty.Store(true)
	// Only adds are queued: the field selector drops a pod from the informer once it is bound,
	// and a failed Binding is re-queued by the worker.
	if _, err := podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pod, ok := obj.(*v1.Pod); ok {
				b.queue.Add(cache.MetaObjectToName(pod))
			}
		},
	}); err != nil {
		fmt.Fprintf(os.Stderr, "nullbinder: %v\n", err)
		os.Exit(1)
	}
	markNodes := func(any) { b.nodesDirty.Store(true) }
	if _, err := nodeInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    markNodes,
		DeleteFunc: markNodes,
	}); err != nil {
		fmt.Fprintf(os.Stderr, "nullbinder: %v\n", err)
		os.Exit(1)
	}

	podFactory.Start(ctx.Done())
	nodeFactory.Start(ctx.Done())
	for _, synced := range []map[reflect.Type]bool{podFactory.WaitForCacheSync(ctx.Done()),
		nodeFactory.WaitForCacheSync(ctx.Done())} {
		for typ, ok := range synced {
			if !ok {
				fmt.Fprintf(os.Stderr, "nullbinder: informer for %v did not sync\n", typ)
				os.Exit(1)
			}
		}
	}
	fmt.Printf("nullbinder ready: %d nodes, %d pods queued, %d workers, qps %g, %.3fs after start\n",
		len(b.nodeList()), b.queue.Len(), *workers, *qps, time.Since(start).Seconds())

	var wg sync.WaitGroup
	for range *workers {
		wg.Go(func() {
			for b.processNext(ctx) {
			}
		})
	}
	<-ctx.Done()
	b.queue.ShutDown()
	wg.Wait()
	fmt.Printf("nullbinder stopped: %d bound, %d retried, %d dropped, %.1fs\n",
		b.bound.Load(), b.retried.Load(), b.dropped.Load(), time.Since(start).Seconds())
}

// nodeList returns the node names in name order, rebuilding them after a node add or delete.
func (b *binder) nodeList() []string {
	if b.nodesDirty.Swap(false) {
		nodes, _ := b.nodes.List(labels.Everything())
		names := make([]string, 0, len(nodes))
		for _, n := range nodes {
			names = append(names, n.Name)
		}
		slices.Sort(names)
		b.nodeNames.Store(&names)
	}
	if p := b.nodeNames.Load(); p != nil {
		return *p
	}
	return nil
}

// processNext binds one queued pod; false once the queue is shut down.
func (b *binder) processNext(ctx context.Context) bool {
	key, quit := b.queue.Get()
	if quit {
		return false
	}
	defer b.queue.Done(key)
	err := b.bind(ctx, key)
	switch {
	case err == nil:
		b.bound.Add(1)
		b.queue.Forget(key)
	case apierrors.IsConflict(err) || apierrors.IsNotFound(err) || errors.Is(err, errGone):
		// Already bound (by an earlier attempt) or deleted: nothing left to do.
		b.queue.Forget(key)
	case b.queue.NumRequeues(key) < maxRetries && ctx.Err() == nil:
		b.retried.Add(1)
		b.queue.AddRateLimited(key)
	default:
		b.dropped.Add(1)
		b.queue.Forget(key)
		fmt.Fprintf(os.Stderr, "nullbinder: giving up on %s: %v\n", key, err)
	}
	return true
}

var errGone = errors.New("pod no longer unbound")

// bind POSTs the Binding of one pod to the next node in round-robin order.
func (b *binder) bind(ctx context.Context, key cache.ObjectName) error {
	pod, err := b.pods.Pods(key.Namespace).Get(key.Name)
	if err != nil {
		return errGone // bound or deleted since it was queued
	}
	nodes := b.nodeList()
	if len(nodes) == 0 {
		return errors.New("no nodes")
	}
	node := nodes[(b.next.Add(1)-1)%uint64(len(nodes))]
	return b.client.CoreV1().Pods(key.Namespace).Bind(ctx, &v1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, UID: pod.UID},
		Target:     v1.ObjectReference{Kind: "Node", Name: node},
	}, metav1.CreateOptions{})
}
