package main

import (
	"os"
	_ "time/tzdata" // CronJob time zones, as the kube mains import it

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// The three mains below are those of k8s.io/kubernetes/cmd/<program>/<program>.go.

func runAPIServer() { os.Exit(cli.Run(apiserver.NewAPIServerCommand())) }

func runControllerManager() { os.Exit(cli.Run(controllermanager.NewControllerManagerCommand())) }

func runScheduler() { os.Exit(cli.Run(scheduler.NewSchedulerCommand())) }
